import Foundation

/// A client that speaks the service's password exchange for guarded items itself, as a hostile
/// program of the same user would: it asks for a guarded item's secret directly, answers a
/// challenge with what it chooses (a wrong password, the nonce on another connection or after
/// another request, a nonce never given, the keychain password for an application password).
/// Run as `python3 -I auth.py MODE ACCOUNT [ARGUMENTS]`; the item is the generic password
/// (`asking`, ACCOUNT); `setup` stores the script's own (`presence`: `.userPresence`, `app`:
/// `.applicationPassword`), so the reads are of its own items, in its own group. Prints `status S` per reply, `needs K A` for a challenge (whether it asks
/// for the keychain and the application password) and `data D` for a secret.
enum AuthenticationClientScript {
    static let source = ServiceClientScripts.pythonWireEncoding + #"""
        def connect():
            c = socket.socket(socket.AF_UNIX)
            c.connect(os.environ['KEYCHAINKIT_SERVICE_SOCKET'])
            return c
        def read(c, n):
            got = b''
            while len(got) < n:
                more = c.recv(n - len(got))
                if not more: sys.exit('the service closed the connection')
                got += more
            return got
        def call(c, code, query):
            payload = bytes([1, code, 0]) + struct.pack('>I', 0) + entries(query) + entries({})
            c.sendall(struct.pack('>I', len(payload)) + payload)
            return parse(read(c, struct.unpack('>I', read(c, 4))[0]))
        class Cursor:
            def __init__(self, b): self.b, self.i = b, 0
            def take(self, n):
                v = self.b[self.i:self.i + n]; self.i += n; return v
            def u32(self): return struct.unpack('>I', self.take(4))[0]
            def value(self):
                tag = self.take(1)[0]
                if tag in (1, 2):
                    raw = self.take(self.u32()); return raw.decode() if tag == 1 else raw
                if tag == 3: return self.take(1)[0] == 1
                if tag == 8:
                    out = {}
                    for _ in range(self.u32()):
                        key = self.take(self.u32()).decode(); out[key] = self.value()
                    return out
                sys.exit('unexpected tag %d' % tag)
        def parse(reply):
            cur = Cursor(reply)
            cur.take(1); status = struct.unpack('>i', cur.take(4))[0]; cur.take(4)
            if cur.take(1)[0] == 1: cur.take(cur.u32())
            result = cur.value() if cur.take(1)[0] == 1 else None
            return status, result
        def item(account, can):
            q = {'class': string('genp'), 'svce': string('asking'), 'acct': string(account), 'r_Data': boolean(True)}
            if can: q['kk_CanAuthenticate'] = boolean(True)
            return q
        def answer(c, nonce, password=None, application=None):
            q = {'nonce': data(nonce)}
            if password is not None: q['password'] = data(password.encode())
            if application is not None: q['applicationPassword'] = data(application.encode())
            return call(c, 63, q)
        def show(status, result):
            print('status %d' % status)
            if status == 0 and isinstance(result, bytes): print('data ' + result.decode())
            if isinstance(result, dict) and result.get('authenticate'):
                print('needs %s %s' % (str(result['keychainPassword']).lower(), str(result['applicationPassword']).lower()))
            return result
        def dictionary(d):
            out = b'\x08' + struct.pack('>I', len(d))
            for k in sorted(d): out += field(k.encode()) + d[k]
            return out
        mode, account = sys.argv[1], sys.argv[2]
        a = connect()
        if mode == 'setup':
            # The script's own guarded items, in its own group: user presence, and an application password.
            for name, flags, extra in (('presence', 1, {}), ('app', 1 << 31, {'kk_ApplicationPassword': data(b'app-password')})):
                q = {'class': string('genp'), 'svce': string('asking'), 'acct': string(name), 'v_Data': data(('secret-' + name).encode()),
                     'accc': dictionary({'pdmn': string('ak'), 'flags': integer(flags)})}
                q.update(extra)
                print('add %s status %d' % (name, call(a, 1, q)[0]))
            sys.exit(0)
        if mode == 'direct':
            show(*call(a, 2, item(account, False))); sys.exit(0)
        if mode == 'forged':
            show(*answer(a, os.urandom(32), sys.argv[3])); sys.exit(0)
        challenge = show(*call(a, 2, item(account, True)))
        if not isinstance(challenge, dict): sys.exit(0)
        nonce = challenge['nonce']
        if mode == 'answer':
            show(*answer(a, nonce, sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None))
        elif mode == 'twice':
            show(*answer(a, nonce, sys.argv[3])); show(*answer(a, nonce, sys.argv[3]))
        elif mode == 'elsewhere':
            show(*answer(connect(), nonce, sys.argv[3]))
        elif mode == 'switch':
            show(*call(a, 2, item(sys.argv[3], False))); show(*answer(a, nonce, sys.argv[4]))
        elif mode == 'proof':
            show(*answer(a, nonce, sys.argv[3]))
            def with_proof(token, label):
                q = item(account, True); q['kk_AuthenticationProof'] = data(token)
                print(label, end=' '); sys.stdout.flush(); show(*call(connect(), 2, q))
            with_proof(challenge['proof'], 'same process')
            sys.stdout.flush()
            child = os.fork()
            if child == 0:
                with_proof(challenge['proof'], 'child'); sys.stdout.flush(); os._exit(0)
            os.waitpid(child, 0)
            with_proof(os.urandom(32), 'made up')
        elif mode == 'wrong':
            for guess in sys.argv[3:]:
                result = show(*answer(a, nonce, guess))
                if not isinstance(result, dict): break
                nonce = result['nonce']
        """#
}
