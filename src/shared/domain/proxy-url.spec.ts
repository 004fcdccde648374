import { bypassesProxy, isMaskOf, maskProxyUrl, parseProxyUrl } from './proxy-url';

describe('proxy URLs', () => {
  it('parses http, https and socks5 with credentials and default ports', () => {
    expect(parseProxyUrl('http://u%40x:p%3Aw@Proxy.Example.com:8080')).toEqual({
      scheme: 'http:',
      hostname: 'proxy.example.com',
      port: 8080,
      username: 'u@x',
      password: 'p:w',
    });
    expect(parseProxyUrl('https://p.example')?.port).toBe(443);
    expect(parseProxyUrl('socks5://P.Example')).toEqual({ scheme: 'socks5:', hostname: 'p.example', port: 1080 });
  });

  it('refuses what is not a proxy: other schemes, paths, queries, spaces, empty', () => {
    for (const text of ['ftp://p:21', 'socks4://p:1080', 'http://p:8080/path', 'http://p:8080?x=1', 'http://p:8080#f', 'http://p :1', '', 'p.example:8080']) {
      expect(parseProxyUrl(text)).toBeNull();
    }
  });

  it('masks credentials, keeps scheme, host and port; an unparsable value shows nothing of itself', () => {
    expect(maskProxyUrl('http://user:secret@p.example:8080')).toBe('http://********@p.example:8080');
    expect(maskProxyUrl('socks5://10.0.0.1')).toBe('socks5://10.0.0.1:1080');
    expect(maskProxyUrl('http://user:secret@p.example:8080/oops')).toBe('********');
    expect(isMaskOf('http://********@p.example:8080', 'http://user:secret@p.example:8080')).toBe(true);
    expect(isMaskOf('http://********@other.example:8080', 'http://user:secret@p.example:8080')).toBe(false);
  });

  it('CAPTURE_PROXY_BYPASS: exact hosts, *.domain and .domain suffixes, * for all', () => {
    const bypass = ['intranet.local', '*.corp.example', '.lab.example'];
    expect(bypassesProxy('INTRANET.local', bypass)).toBe(true);
    expect(bypassesProxy('wiki.corp.example', bypass)).toBe(true);
    expect(bypassesProxy('corp.example', bypass)).toBe(true);
    expect(bypassesProxy('a.lab.example', bypass)).toBe(true);
    expect(bypassesProxy('notcorp.example', bypass)).toBe(false);
    expect(bypassesProxy('example.com', bypass)).toBe(false);
    expect(bypassesProxy('anything', ['*'])).toBe(true);
  });
});
