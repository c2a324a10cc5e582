import Foundation

/// Programs the attack tests run under real users besides keychainctl: a Python client that
/// speaks the service's wire format itself (so that the caller is a script under an interpreter),
/// and a flooder that holds many connections open.
enum ServiceClientScripts {
    /// The start of every Python client of the service: its imports and the wire format's
    /// encoders of a field, a string, data, a boolean, an integer and a dictionary's entries.
    static let pythonWireEncoding = #"""
        import os, socket, struct, sys
        def field(b): return struct.pack('>I', len(b)) + b
        def string(t): return b'\x01' + field(t.encode())
        def data(b): return b'\x02' + field(b)
        def boolean(v): return b'\x03' + bytes([1 if v else 0])
        def integer(v): return b'\x04' + struct.pack('>q', v)
        def entries(d):
            out = struct.pack('>I', len(d))
            for k in sorted(d): out += field(k.encode()) + d[k]
            return out
        """# + "\n"

    /// The hostile wire client the attack tests extend with their own payload: the encoders above
    /// and `send_request(code, query, groups=())`, which sends one request (operation `code`, no
    /// application identifier claimed, the access groups `groups`, the entries `query`, no
    /// changes) on a connection of its own to `KEYCHAINKIT_SERVICE_SOCKET` and prints the reply's
    /// status, or `closed` when the service closed the connection unanswered.
    static let pythonOneRequest = pythonWireEncoding + #"""
        def send_request(code, query, groups=()):
            claimed = struct.pack('>I', len(groups)) + b''.join(field(group.encode()) for group in groups)
            payload = bytes([1, code, 0]) + claimed + entries(query) + entries({})
            connection = socket.socket(socket.AF_UNIX)
            connection.connect(os.environ['KEYCHAINKIT_SERVICE_SOCKET'])
            connection.sendall(struct.pack('>I', len(payload)) + payload)
            reply = b''
            while len(reply) < 9:
                more = connection.recv(64)
                if not more: break
                reply += more
            print(struct.unpack('>i', reply[5:9])[0] if len(reply) >= 9 else 'closed')
        """# + "\n"

    /// `python3 -I client.py add|find GROUP [SECRET]`: one SecItem call on the generic password
    /// (`deploy`, `script`), claiming the access group GROUP ("" for none); prints the status.
    static let client = pythonWireEncoding + #"""
        operation, group = sys.argv[1], sys.argv[2]
        query = {'class': string('genp'), 'acct': string('deploy'), 'svce': string('script')}
        if operation == 'add':
            query['v_Data'] = data(sys.argv[3].encode()); code = 1
        else:
            query['r_Data'] = boolean(True); code = 2
        groups = struct.pack('>I', 1) + field(group.encode()) if group else struct.pack('>I', 0)
        payload = bytes([1, code, 0]) + groups + entries(query) + entries({})
        connection = socket.socket(socket.AF_UNIX)
        connection.connect(os.environ['KEYCHAINKIT_SERVICE_SOCKET'])
        connection.sendall(struct.pack('>I', len(payload)) + payload)
        def read(n):
            got = b''
            while len(got) < n:
                more = connection.recv(n - len(got))
                if not more: sys.exit('the service closed the connection')
                got += more
            return got
        reply = read(struct.unpack('>I', read(4))[0])
        status = struct.unpack('>i', reply[1:5])[0]
        print(status)
        if status == 0 and operation == 'find':
            # version, status, unreadable, no failure reason, a result: a data value
            print(reply[16:16 + struct.unpack('>I', reply[12:16])[0]].decode())
        """#

    /// `python3 -I kept.py`: one connection kept open across calls, driven by lines on standard
    /// input — `find GROUP`, `add GROUP SECRET` (the item `deploy`/`script`, claiming GROUP, ""
    /// for none; prints the status, and the secret after a found item) and `exec GROUP`: keeps the
    /// connection across an exec (clearing close-on-exec, which the client library sets) into
    /// `python3 -I -c` code that sends a find claiming GROUP on it and prints what it got. Prints
    /// its pid first.
    static let kept = pythonWireEncoding + #"""
        def request(connection, operation, group, secret=None):
            query = {'class': string('genp'), 'acct': string('deploy'), 'svce': string('script')}
            if operation == 'add':
                query['v_Data'] = data(secret.encode()); code = 1
            else:
                query['r_Data'] = boolean(True); code = 2
            groups = struct.pack('>I', 1) + field(group.encode()) if group else struct.pack('>I', 0)
            payload = bytes([1, code, 0]) + groups + entries(query) + entries({})
            connection.sendall(struct.pack('>I', len(payload)) + payload)
            def read(n):
                got = b''
                while len(got) < n:
                    more = connection.recv(n - len(got))
                    if not more: return None
                    got += more
                return got
            header = read(4)
            reply = header and read(struct.unpack('>I', header)[0])
            if not reply:
                print('closed', flush=True); return
            status = struct.unpack('>i', reply[1:5])[0]
            print(status, flush=True)
            if status == 0 and operation == 'find':
                print(reply[16:16 + struct.unpack('>I', reply[12:16])[0]].decode(), flush=True)
        if len(sys.argv) == 3:  # the program exec'd with the connection: argv is the descriptor and the group
            request(socket.socket(fileno=int(sys.argv[1])), 'find', sys.argv[2])
            sys.exit(0)
        connection = socket.socket(socket.AF_UNIX)
        connection.connect(os.environ['KEYCHAINKIT_SERVICE_SOCKET'])
        print(os.getpid(), flush=True)
        for line in sys.stdin:
            words = line.split(' ')
            words[-1] = words[-1].rstrip('\n')
            if words[0] == 'setuid':  # become another user, keeping the connection
                os.setgroups([]); os.setgid(int(words[1])); os.setuid(int(words[1]))
                print('0', flush=True); continue
            if words[0] == 'exec':
                os.set_inheritable(connection.fileno(), True)
                code = open(__file__).read()
                os.execv(sys.executable, [sys.executable, '-I', '-c', code, str(connection.fileno()), words[1]])
            request(connection, words[0], *words[1:])
        """#

    /// `python3 flood.py COUNT`: opens COUNT connections (raising its own descriptor limit),
    /// sends a third of them half a frame, a third a malformed frame, leaves the rest silent,
    /// prints how many the service closed at once, then holds the rest until its standard input closes.
    static let flood = #"""
        import os, resource, socket, struct, sys, time
        count = int(sys.argv[1])
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        held = []
        for i in range(count):
            c = socket.socket(socket.AF_UNIX)
            c.settimeout(0.5)  # a service that stopped accepting fills its backlog; do not hang on it
            try:
                c.connect(os.environ['KEYCHAINKIT_SERVICE_SOCKET'])
            except OSError:
                continue
            try:
                if i % 3 == 0: c.send(b'\x00\x00\x01\x00\x01')        # half a frame, then silence
                elif i % 3 == 1: c.send(b'\x00\x00\x00\x02\x09\x09')  # a malformed frame
            except OSError:
                pass
            held.append(c)
        time.sleep(1)
        closed = 0
        for c in held:
            c.setblocking(False)
            try:
                if c.recv(1) == b'': closed += 1
            except BlockingIOError:
                pass
            except OSError:
                closed += 1
        print(len(held), closed, flush=True)
        sys.stdin.read()
        """#
}
