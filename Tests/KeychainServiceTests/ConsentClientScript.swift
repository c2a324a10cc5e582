import Foundation

/// A client that speaks the service's consent exchange itself, as a hostile program of the same
/// user would: it asks for another application's item saying it can prompt, then answers the
/// challenge with what it chooses — a wrong password, the nonce on another connection, the nonce
/// after asking for another item. Run as `python3 -I consent.py MODE SERVICE [ARGUMENTS]`; the
/// item is the generic password (`deploy`, SERVICE). Prints one line per reply: `status S`, then
/// `data D` for a read's secret and `prompt: …` lines for a challenge's text.
enum ConsentClientScript {
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
            reply = read(c, struct.unpack('>I', read(c, 4))[0])
            return parse(reply)
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
        def item(service, prompt):
            q = {'class': string('genp'), 'acct': string('deploy'), 'svce': string(service), 'r_Data': boolean(True)}
            if prompt: q['kk_CanPrompt'] = boolean(True)
            return q
        def answer(c, nonce, password, always=False):
            return call(c, 43, {'nonce': data(nonce), 'password': data(password.encode()), 'always': boolean(always)})
        def show(status, result):
            print('status %d' % status)
            if status == 0 and isinstance(result, bytes): print('data ' + result.decode())
            if isinstance(result, dict) and 'prompt' in result:
                for line in result['prompt'].split('\n'): print('prompt: ' + line)
        mode, service = sys.argv[1], sys.argv[2]
        a = connect()
        if mode == 'noprompt':
            show(*call(a, 2, item(service, False))); sys.exit(0)
        status, challenge = call(a, 2, item(service, True))
        show(status, challenge)
        if status != -25315: sys.exit(0)
        nonce = challenge['nonce']
        if mode == 'answer':
            show(*answer(a, nonce, sys.argv[3], len(sys.argv) > 4 and sys.argv[4] == 'always'))
        elif mode == 'twice':
            show(*answer(a, nonce, sys.argv[3])); show(*answer(a, nonce, sys.argv[4]))
        elif mode == 'retry':
            show(*answer(a, nonce, sys.argv[3]))
            status, challenge = call(a, 2, item(service, True)); print('status %d' % status)
            show(*answer(a, challenge['nonce'], sys.argv[4]))
        elif mode == 'elsewhere':
            show(*answer(connect(), nonce, sys.argv[3]))
        elif mode == 'switch':
            show(*call(a, 2, item(sys.argv[3], False))); show(*answer(a, nonce, sys.argv[4]))
        """#
}
