import Foundation
import Testing

/// `keychainctl import-credentials` on generated files of every format, then the git and Docker
/// helpers and `exec` finding what was imported.
@Suite("keychainctl import-credentials")
struct ImportCredentialsTests {
    private func write(_ sandbox: ToolSandbox, _ name: String, _ text: String) throws -> String {
        let path = sandbox.directory + "/" + name
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        return path
    }

    /// Every secret in `secrets` appears in neither output stream.
    private func expectNoSecrets(_ run: ToolRun, _ secrets: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in secrets {
            #expect(!run.stdout.contains(secret) && !run.stderr.contains(secret), "a secret was printed", sourceLocation: sourceLocation)
        }
    }

    private func gitGet(_ sandbox: ToolSandbox, _ request: String) throws -> String {
        try sandbox.keychainctl(["git-credential", "get"], stdin: request + "\n").stdout
    }

    @Test(".git-credentials: dry run changes nothing; --apply stores what git-credential get answers; a second run is unchanged")
    func gitCredentials() throws {
        try withSandbox { (sandbox) throws in
            let file = try write(sandbox, ".git-credentials",
                                 "https://alice:p%40ss%3Aword@git.example.com\nhttps://bob:tok2@git.example.com:8443/org/repo.git\n\n")
            let dry = try sandbox.keychainctl(["import-credentials", file])
            #expect(dry.status == 0, "\(dry.stderr)")
            #expect(dry.stdout.contains("new       https://alice@git.example.com  (\(file):1)"))
            #expect(dry.stdout.contains("new       https://bob@git.example.com:8443/org/repo.git  (\(file):2)"))
            #expect(dry.stdout.contains("dry run: 2 of 2 credentials would be stored"))
            expectNoSecrets(dry, ["p@ss:word", "p%40ss", "tok2"])
            #expect(try sandbox.keychainctl(["find-internet-password", "-s", "git.example.com"]).status == 44, "a dry run stores nothing")

            let applied = try sandbox.keychainctl(["import-credentials", file, "--apply"])
            #expect(applied.status == 0, "\(applied.stderr)")
            #expect(applied.stdout.contains("stored 2 credentials; 0 were already in the keychain"))
            expectNoSecrets(applied, ["p@ss:word", "tok2"])
            #expect(try gitGet(sandbox, "protocol=https\nhost=git.example.com\n") == "username=alice\npassword=p@ss:word\n")
            #expect(try gitGet(sandbox, "protocol=https\nhost=git.example.com:8443\npath=org/repo.git\n") == "username=bob\npassword=tok2\n")

            let again = try sandbox.keychainctl(["import-credentials", file, "--apply", "--remove-source"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.contains("unchanged https://alice@git.example.com"))
            #expect(again.stdout.contains("stored 0 credentials; 2 were already in the keychain"))
            #expect(!FileManager.default.fileExists(atPath: file), "--remove-source removes .git-credentials once all is stored")
            #expect(try gitGet(sandbox, "protocol=https\nhost=git.example.com\n") == "username=alice\npassword=p@ss:word\n")
        }
    }

    @Test(".netrc: quoted passwords, macros skipped; a default entry stays and blocks --remove-source before anything is stored")
    func netrc() throws {
        try withSandbox { (sandbox) throws in
            let text = """
                # SwiftPM registry login
                machine packages.example.com login ci password "pass word \\" q"
                machine ftp.example.org
                    login anon password plain-one
                macdef init
                cd /pub

                default login guest password guestpw
                """
            let file = try write(sandbox, ".netrc", text + "\n")
            let refused = try sandbox.keychainctl(["import-credentials", file, "--apply", "--remove-source"])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("line 8: the default entry applies to every host"))
            #expect(refused.stderr.contains("Nothing was stored."))
            #expect(try sandbox.keychainctl(["find-internet-password", "-s", "packages.example.com"]).status == 44)
            expectNoSecrets(refused, ["guestpw", "pass word", "plain-one"])

            let applied = try sandbox.keychainctl(["import-credentials", file, "--apply"])
            #expect(applied.status == 0, "\(applied.stderr)")
            #expect(applied.stdout.contains("left in \(file): line 8"))
            #expect(FileManager.default.fileExists(atPath: file))
            let found = try sandbox.keychainctl(["find-internet-password", "-s", "packages.example.com", "-r", "htps", "-a", "ci", "-w"])
            #expect(found.stdout == "pass word \" q\n")
            #expect(try gitGet(sandbox, "protocol=https\nhost=ftp.example.org\n") == "username=anon\npassword=plain-one\n")
        }
    }

    @Test("Docker config.json: auths become what docker-credential-keychainkit get answers; --remove-source keeps the other settings")
    func dockerConfig() throws {
        try withSandbox { (sandbox) throws in
            let hub = Data("hubuser:hubpass".utf8).base64EncodedString()
            let local = Data("me:pa:ss".utf8).base64EncodedString()
            let file = try write(sandbox, "docker/config.json", """
                {
                  "auths": {
                    "https://index.docker.io/v1/": {"auth": "\(hub)"},
                    "localhost:5000": {"auth": "\(local)"},
                    "ghcr.io": {"identitytoken": "idtok"},
                    "helper.example": {}
                  },
                  "psFormat": "table {{.ID}}"
                }
                """)
            let applied = try sandbox.keychainctl(["import-credentials", file, "--apply", "--remove-source"])
            #expect(applied.status == 0, "\(applied.stderr)")
            expectNoSecrets(applied, ["hubpass", "pa:ss", "idtok", hub, local])
            let get = try sandbox.docker(["get"], stdin: "https://index.docker.io/v1/")
            #expect(get.status == 0, "\(get.stdout)")
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(get.stdout.utf8)) as? [String: String])
            #expect(answer["Username"] == "hubuser" && answer["Secret"] == "hubpass")
            let localGet = try #require(try JSONSerialization.jsonObject(with: Data(try sandbox.docker(["get"], stdin: "localhost:5000").stdout.utf8)) as? [String: String])
            #expect(localGet["Username"] == "me" && localGet["Secret"] == "pa:ss")
            let tokenGet = try #require(try JSONSerialization.jsonObject(with: Data(try sandbox.docker(["get"], stdin: "ghcr.io").stdout.utf8)) as? [String: String])
            #expect(tokenGet["Username"] == "<token>" && tokenGet["Secret"] == "idtok")

            let rewritten = try #require(FileManager.default.contents(atPath: file))
            let config = try #require(try JSONSerialization.jsonObject(with: rewritten) as? [String: Any])
            #expect(config["credsStore"] as? String == "keychainkit")
            #expect(config["psFormat"] as? String == "table {{.ID}}")
            let auths = try #require(config["auths"] as? [String: [String: Any]])
            #expect(Set(auths.keys) == ["https://index.docker.io/v1/", "localhost:5000", "ghcr.io", "helper.example"])
            #expect(auths.values.allSatisfy { $0.isEmpty })
            for secret in ["hubpass", hub, "idtok"] { #expect(rewritten.range(of: Data(secret.utf8)) == nil) }
        }
    }

    @Test("Docker config.json under KEYCHAINKIT_ACCESS_GROUPS: imported into the group the Docker helper adds to, so it finds them; another group does not")
    func dockerConfigInConfiguredGroup() throws {
        try withSandbox { (sandbox) throws in
            let auth = Data("teamuser:teampass".utf8).base64EncodedString()
            let file = try write(sandbox, "docker/config.json", #"{"auths": {"registry.example": {"auth": "\#(auth)"}}}"#)
            // Padded and with an empty entry, as a hand-written variable may be: the group is "docker-team".
            let team = ["KEYCHAINKIT_ACCESS_GROUPS": " docker-team ,,other", "KEYCHAINKIT_APP_ID": "ignored-app"]
            let applied = try sandbox.keychainctl(["import-credentials", file, "--apply"], environment: team)
            #expect(applied.status == 0, "\(applied.stderr)")
            let helper = sandbox.tool("docker-credential-keychainkit")
            let get = try sandbox.run(helper, ["get"], stdin: "registry.example", environment: team)
            #expect(get.status == 0, "\(get.stdout) \(get.stderr)")
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(get.stdout.utf8)) as? [String: String])
            #expect(answer["Username"] == "teamuser" && answer["Secret"] == "teampass")
            // The helper under its default group (its executable's name) is not entitled to docker-team.
            let outsider = try sandbox.docker(["get"], stdin: "registry.example")
            #expect(outsider.status != 0 && !outsider.stdout.contains("teampass"), "\(outsider.stdout)")
        }
    }

    @Test("gh hosts.yml: tokens per host and user; git and exec find them; --remove-source drops only the token lines")
    func githubHosts() throws {
        try withSandbox { (sandbox) throws in
            let file = try write(sandbox, "gh/hosts.yml", """
                github.com:
                    users:
                        octocat:
                            oauth_token: gho_active
                        second:
                            oauth_token: 'gho_second'
                    git_protocol: https
                    oauth_token: gho_active  # the active account's
                    user: octocat
                ghe.example.com:
                    oauth_token: "gho_enterprise"
                    user: admin
                """)
            let applied = try sandbox.keychainctl(["import-credentials", file, "--apply", "--remove-source"])
            #expect(applied.status == 0, "\(applied.stderr)")
            #expect(applied.stdout.contains("stored 3 credentials"))
            expectNoSecrets(applied, ["gho_active", "gho_second", "gho_enterprise"])
            #expect(try gitGet(sandbox, "protocol=https\nhost=github.com\nusername=second\n") == "username=second\npassword=gho_second\n")
            #expect(try gitGet(sandbox, "protocol=https\nhost=ghe.example.com\n") == "username=admin\npassword=gho_enterprise\n")
            let exec = try sandbox.keychainctl(["exec", "--env", "GH_TOKEN=internet:https://octocat@github.com", "--", "sh", "-c", "test \"$GH_TOKEN\" = gho_active"])
            #expect(exec.status == 0, "\(exec.stderr)")
            let rewritten = try String(contentsOfFile: file, encoding: .utf8)
            #expect(!rewritten.contains("oauth_token") && !rewritten.contains("gho_"))
            #expect(rewritten.contains("user: octocat") && rewritten.contains("git_protocol: https") && rewritten.contains("second:"))
        }
    }

    @Test("gh hosts.yml --remove-source: only the lines gh keeps tokens on go; an oauth_token key elsewhere, CRLF and the last newline stay byte for byte")
    func githubHostsRewriteKeepsOtherLines() throws {
        try withSandbox { (sandbox) throws in
            // An `oauth_token` mapping is no token: removing its line would orphan its children and
            // leave a file neither gh nor this reader can parse.
            let lines = ["github.com:", "    oauth_token: gho_only", "    extra:", "        oauth_token:", "            kept: yes",
                         "    user: octocat", "oauth_token:", "    note: a host with an odd name", ""]
            let file = try write(sandbox, "gh/hosts.yml", lines.joined(separator: "\r\n"))
            let applied = try sandbox.keychainctl(["import-credentials", file, "--apply", "--remove-source"])
            #expect(applied.status == 0, "\(applied.stderr)")
            #expect(applied.stdout.contains("stored 1 credential"))
            var expected = lines
            expected.remove(at: 1)
            #expect(FileManager.default.contents(atPath: file) == Data(expected.joined(separator: "\r\n").utf8))
            #expect(try gitGet(sandbox, "protocol=https\nhost=github.com\n") == "username=octocat\npassword=gho_only\n")
        }
    }

    @Test("Chrome and Firefox password CSV exports: internet passwords at the URL's protocol, host, port and path; quoted commas, quotes and line breaks; app credentials left, not dropped")
    func browserCSV() throws {
        try withSandbox { (sandbox) throws in
            let chrome = try write(sandbox, "Chrome Passwords.csv", """
                name,url,username,password,note
                git.example.com,https://git.example.com/login,alice,"pa,ss ""q""
                second line",a note
                app,android://Zm9v@com.example.app/,carol,app-secret,
                """.replacingOccurrences(of: "\n", with: "\r\n"))  // Chrome ends its lines with CRLF
            let firefox = try write(sandbox, "logins.csv", """
                "url","username","password","httpRealm","formActionOrigin","guid","timeCreated","timeLastUsed","timePasswordChanged"
                "http://intranet.example.org:8080","bob","ff-secret",,"http://intranet.example.org:8080","{1}","1","2","3"

                """)
            let dry = try sandbox.keychainctl(["import-credentials", chrome, firefox])
            #expect(dry.status == 0, "\(dry.stderr)")
            #expect(dry.stdout.contains("new       https://alice@git.example.com/login  (\(chrome):2)"), "\(dry.stdout)")
            #expect(dry.stdout.contains("new       http://bob@intranet.example.org:8080  (\(firefox):2)"), "\(dry.stdout)")
            #expect(dry.stdout.contains("left in \(chrome): line 4: a credential for android://, not a web site"), "\(dry.stdout)")
            expectNoSecrets(dry, ["pa,ss", "ff-secret", "app-secret"])
            let applied = try sandbox.keychainctl(["import-credentials", chrome, firefox, "--apply"])
            #expect(applied.status == 0 && applied.stdout.contains("stored 2 credentials"), "\(applied)")
            let found = try sandbox.keychainctl(["find-internet-password", "-s", "git.example.com", "-a", "alice", "-w"])
            #expect(found.stdout == "pa,ss \"q\"\r\nsecond line\n", "the quoted field, CRLF inside it kept: \(found)")
            let firefoxItem = try sandbox.keychainctl(["find-internet-password", "-s", "intranet.example.org", "-P", "8080", "-a", "bob", "-w"])
            #expect(firefoxItem.stdout == "ff-secret\n", "\(firefoxItem)")
            let again = try sandbox.keychainctl(["import-credentials", chrome, firefox, "--apply"])
            #expect(again.stdout.contains("stored 0 credentials; 2 were already in the keychain"), "\(again.stdout)")
            // --remove-source is refused while a row stays behind (the app credential).
            let remove = try sandbox.keychainctl(["import-credentials", chrome, "--apply", "--remove-source"])
            #expect(remove.status == 1 && FileManager.default.fileExists(atPath: chrome), "\(remove)")
            let broken = try write(sandbox, "broken.csv", "name,url,username,password\nx,https://h.example,u,\"never closed\n")
            let refused = try sandbox.keychainctl(["import-credentials", broken])
            #expect(refused.status == 1 && refused.stderr.contains("\(broken):2: a quoted field is never closed"), "\(refused)")
            let notBrowser = try write(sandbox, "other.csv", "a,b\n1,2\n")
            #expect(try sandbox.keychainctl(["import-credentials", notBrowser]).stderr.contains("lacks url, username, password"))
        }
    }

    @Test(".env: variables become generic passwords of one service that exec hands back")
    func dotenv() throws {
        try withSandbox { (sandbox) throws in
            let file = try write(sandbox, "app/.env", """
                # settings
                export API_KEY=plain-value # a comment
                DB_URL='postgres://u:p@db/app'
                MULTI="line one
                line two \\"quoted\\""
                EMPTY=
                """)
            let dry = try sandbox.keychainctl(["import-credentials", file])
            #expect(dry.stdout.contains("new       generic password dotenv:app/API_KEY  (\(file):2)"))
            expectNoSecrets(dry, ["plain-value", "postgres://", "line one"])
            let applied = try sandbox.keychainctl(["import-credentials", file, "--apply", "--env-service", "myapp", "--remove-source"])
            #expect(applied.status == 0, "\(applied.stderr)")
            #expect(!FileManager.default.fileExists(atPath: file))
            let script = "test \"$API_KEY\" = plain-value && test \"$DB_URL\" = 'postgres://u:p@db/app' && test \"$MULTI\" = \"$(printf 'line one\\nline two \"quoted\"')\" && test -z \"$EMPTY\" && test \"${EMPTY+set}\" = set"
            let run = try sandbox.keychainctl(["exec", "--env", "API_KEY=myapp/API_KEY", "--env", "DB_URL=myapp/DB_URL", "--env", "MULTI=myapp/MULTI",
                                               "--env", "EMPTY=myapp/EMPTY", "--", "sh", "-c", script])
            #expect(run.status == 0, "\(run.stderr)")
        }
    }

    @Test("files written with CRLF line ends (.env, .netrc, exec --env-file) read like LF files, line numbers included")
    func crlfFiles() throws {
        try withSandbox { (sandbox) throws in
            let dotenv = try write(sandbox, "crlf/.env", "# settings\r\nAPI_KEY=plain-value\r\nDB_URL='postgres://db/app'\r\n")
            let netrc = try write(sandbox, "crlf/.netrc", "machine crlf.example\r\nlogin me\r\npassword netrc-secret\r\n")
            let dry = try sandbox.keychainctl(["import-credentials", dotenv, netrc])
            #expect(dry.stdout.contains("dotenv:crlf/DB_URL  (\(dotenv):3)"), "\(dry.stdout)")
            let applied = try sandbox.keychainctl(["import-credentials", dotenv, netrc, "--apply", "--env-service", "crlfapp"])
            #expect(applied.status == 0, "\(applied.stderr)")
            let envFile = try write(sandbox, "crlf/exec.env", "API_KEY=crlfapp/API_KEY\r\n\r\nDB_URL=crlfapp/DB_URL\r\n")
            let script = "test \"$API_KEY\" = plain-value && test \"$DB_URL\" = postgres://db/app"
            let run = try sandbox.keychainctl(["exec", "--env-file", envFile, "--", "sh", "-c", script])
            #expect(run.status == 0, "\(run.stderr)")
            let wrong = try write(sandbox, "crlf/wrong.env", "API_KEY=crlfapp/API_KEY\r\nnot a mapping\r\n")
            let refused = try sandbox.keychainctl(["exec", "--env-file", wrong, "--", "true"])
            #expect(refused.status != 0 && refused.stderr.contains("\(wrong):2: expected NAME=item"), "\(refused.stderr)")
            #expect(try gitGet(sandbox, "protocol=https\nhost=crlf.example\n").contains("password=netrc-secret\n"))
        }
    }

    @Test("malformed files: an error naming file and line, no secret in it, and nothing imported from the valid file beside it")
    func malformedFiles() throws {
        try withSandbox { (sandbox) throws in
            let valid = try write(sandbox, "ok/.git-credentials", "https://u:goodsecret@valid.example\n")
            let cases: [(name: String, text: String, line: Int, secret: String)] = [
                (".netrc", "machine a.example login u password two words here\n", 1, "words"),
                ("g/.git-credentials", "https://u:fine@a.example\nhttps://no-password-host.example\n", 2, "fine"),
                ("d/config.json", "{\n  \"auths\": {\n    \"r.example\": {\"auth\": \"\(Data("nocolon".utf8).base64EncodedString())\"}\n  }\n}\n", 3, "nocolon"),
                ("j/config.json", "{\n  \"auths\": {\n    \"r.example\": {\"auth\": \"eA==\"}\n  \n  \"x\": 1\n}\n", 5, "eA=="),
                // Cut short: the last line that is not blank, where something is missing.
                ("t/config.json", "{\n  \"auths\": {\n    \"r.example\": {\"auth\": \"dTpjdXRzaG9ydA==\"\n\n", 3, "dTpjdXRzaG9ydA=="),
                // A `\u` escape cut short: the line of the escape, whichever line ends the file has.
                ("u/config.json", "\n\n\n{\"\\ut\n]", 4, "\\ut"),
                ("u2/config.json", "\r\n\r\n\r\n{\"\\ut\r\n]", 4, "\\ut"),
                ("h/hosts.yml", "github.com:\n    oauth_token: gho_tab\n\tuser: x\n", 3, "gho_tab"),
                ("h2/hosts.yml", "github.com:\n    - oauth_token: gho_list\n", 2, "gho_list"),
                ("e/.env", "GOOD=fine-value\nBAD LINE WITHOUT EQUALS\n", 2, "fine-value"),
                ("e2/.env", "A=\"never closed\n", 1, "never closed"),
            ]
            for malformed in cases {
                let file = try write(sandbox, malformed.name, malformed.text)
                let run = try sandbox.keychainctl(["import-credentials", valid, file, "--apply"])
                #expect(run.status == 1, "\(malformed.name)")
                if malformed.line > 0 {
                    #expect(run.stderr.contains("\(file):\(malformed.line): "), "\(malformed.name): \(run.stderr)")
                } else {
                    #expect(run.stderr.contains("\(file):"), "\(malformed.name): \(run.stderr)")
                }
                #expect(run.stderr.contains("Nothing was stored."))
                expectNoSecrets(run, [malformed.secret, "goodsecret"])
                #expect(try sandbox.keychainctl(["find-internet-password", "-s", "valid.example"]).status == 44, "\(malformed.name): half-imported")
                #expect(FileManager.default.fileExists(atPath: file))
            }
        }
    }

    @Test("hostile config.json files under --remove-source: refused with file and line, nothing stored, the file byte for byte as it was")
    func hostileDockerConfigs() throws {
        try withSandbox { (sandbox) throws in
            let auth = Data("hostile:hidden-secret".utf8).base64EncodedString()
            let cases: [(name: String, content: Data, line: Int)] = [
                // Which of two "auth" members counts differs between readers: one could be stored, the other left.
                ("dup/config.json", Data("{\"auths\": {\"r.example\": {\n\"auth\": \"\",\n\"auth\": \"\(auth)\"}}}\n".utf8), 3),
                ("deep/config.json", Data("{\"auths\": {\"r.example\": {\"auth\": \"\(auth)\"}},\n\"x\": \(String(repeating: "[", count: 20_000))}\n".utf8), 2),
                ("utf8/config.json", Data("{\"auths\": {\"r.example\": {\"auth\": \"\(auth)\"}},\n\"x\": \"".utf8) + Data([0xC0, 0xAF]) + Data("\"}\n".utf8), 2),
            ]
            for hostile in cases {
                let file = try write(sandbox, hostile.name, "")
                try hostile.content.write(to: URL(fileURLWithPath: file))
                let run = try sandbox.keychainctl(["import-credentials", file, "--apply", "--remove-source"])
                #expect(run.status == 1 && run.stderr.contains("\(file):\(hostile.line): "), "\(hostile.name): \(run.stderr)")
                #expect(run.stderr.contains("Nothing was stored."), "\(hostile.name): \(run.stderr)")
                expectNoSecrets(run, ["hidden-secret", auth])
                #expect(FileManager.default.contents(atPath: file) == hostile.content, "\(hostile.name): the file was changed")
                #expect(try sandbox.keychainctl(["find-internet-password", "-s", "r.example"]).status == 44, "\(hostile.name): stored")
            }
        }
    }

    @Test("the same credential with two different secrets in two files is refused; an unknown file name needs --format")
    func conflictsAndFormat() throws {
        try withSandbox { (sandbox) throws in
            let one = try write(sandbox, "a/.git-credentials", "https://u:first@same.example\n")
            let two = try write(sandbox, "b/.git-credentials", "https://u:second@same.example\n")
            let conflict = try sandbox.keychainctl(["import-credentials", one, two, "--apply"])
            #expect(conflict.status == 1)
            #expect(conflict.stderr.contains("\(two):1: https://u@same.example has a different secret at \(one):1"))
            #expect(try sandbox.keychainctl(["find-internet-password", "-s", "same.example"]).status == 44)

            let odd = try write(sandbox, "creds.txt", "https://u:third@odd.example\n")
            let unknown = try sandbox.keychainctl(["import-credentials", odd])
            #expect(unknown.status == 1)
            #expect(unknown.stderr.contains("cannot tell the format"))
            let named = try sandbox.keychainctl(["import-credentials", "--format", "git-credentials", odd, "--apply"])
            #expect(named.status == 0, "\(named.stderr)")
            #expect(try gitGet(sandbox, "protocol=https\nhost=odd.example\n") == "username=u\npassword=third\n")
        }
    }

    @Test("a locked keychain: nothing is stored and no file is removed (36, no prompt without a terminal)")
    func lockedKeychain() throws {
        try withSandbox { (sandbox) throws in
            // The default keychain with a password, then locked.
            #expect(try sandbox.keychainctl(["create-keychain", sandbox.keychainPath, "-p"], stdin: "pw\n").status == 0)
            #expect(try sandbox.keychainctl(["lock-keychain", sandbox.keychainPath]).status == 0)
            let file = try write(sandbox, ".git-credentials", "https://u:lockedsecret@l.example\n")
            let run = try sandbox.run(sandbox.tool("keychainctl"), ["import-credentials", file, "--apply", "--remove-source"], timeout: 10)
            #expect(!run.timedOut)
            #expect(run.status == 36)
            #expect(FileManager.default.fileExists(atPath: file))
            expectNoSecrets(run, ["lockedsecret"])
        }
    }

    @Test("--remove-source refuses a symbolic link or a hard-linked file before storing anything (the secrets would stay)")
    func linkedSources() throws {
        try withSandbox { (sandbox) throws in
            let real = try write(sandbox, "dotfiles/git-credentials", "https://u:linked@link.example\n")
            let link = sandbox.directory + "/.git-credentials"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
            let viaLink = try sandbox.keychainctl(["import-credentials", link, "--apply", "--remove-source"])
            #expect(viaLink.status == 1)
            #expect(viaLink.stderr.contains("is a symbolic link to \(real)"))
            #expect(try sandbox.keychainctl(["find-internet-password", "-s", "link.example"]).status == 44)

            let hard = sandbox.directory + "/hard/.git-credentials"
            try FileManager.default.createDirectory(atPath: sandbox.directory + "/hard", withIntermediateDirectories: true)
            try FileManager.default.linkItem(atPath: real, toPath: hard)
            let viaHardLink = try sandbox.keychainctl(["import-credentials", hard, "--apply", "--remove-source"])
            #expect(viaHardLink.status == 1)
            #expect(viaHardLink.stderr.contains("has 2 hard links"))
            #expect(FileManager.default.fileExists(atPath: real) && FileManager.default.fileExists(atPath: hard))
            // Without --remove-source a link is just a way to name the file.
            #expect(try sandbox.keychainctl(["import-credentials", link, "--apply"]).status == 0)
        }
    }
}
