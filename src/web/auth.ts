/**
 * Who may talk to `firedup serve`. Bound to loopback, anyone on this machine may (like any local tool), but
 * only under a loopback Host name, so a web page that rebinds its DNS name to 127.0.0.1 cannot read the API.
 * Bound anywhere else, every request needs the token: `Authorization: Bearer T`, `?token=T` (which also
 * sets an HttpOnly cookie so the page's own requests carry it), or that cookie.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const COOKIE = 'firedup_token';

/** What a token may contain: it travels in URLs, cookies and headers without escaping. */
export const TOKEN_RE = /^[A-Za-z0-9._~-]{16,256}$/;

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h);
}

export function generateToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Constant-time equality; hashing first makes the comparison independent of the lengths too. */
export function sameToken(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

export type AuthResult =
  | {
      ok: true /** Set-Cookie to send: the token came in the query. */;
      setCookie: string | null;
      fromQuery: boolean;
    }
  | { ok: false; reason: string };

/** The Host header's name without its port (`[::1]:7070` → `::1`). */
function hostName(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^(\[[^\]]*\]|[^:]*)(?::\d+)?$/.exec(header.trim());
  return m ? m[1]! : null;
}

export function checkAuth(req: IncomingMessage, url: URL, token: string | null): AuthResult {
  if (token === null) {
    const host = hostName(req.headers.host);
    if (host === null || !isLoopbackHost(host))
      return { ok: false, reason: `Host ${req.headers.host ?? '(none)'} is not a loopback name` };
    return { ok: true, setCookie: null, fromQuery: false };
  }
  const auth = req.headers.authorization;
  if (auth) {
    const m = /^Bearer[ \t]+(\S+)\s*$/i.exec(auth);
    if (m && sameToken(m[1]!, token)) return { ok: true, setCookie: null, fromQuery: false };
    return { ok: false, reason: 'wrong token in the Authorization header' };
  }
  const q = url.searchParams.get('token');
  if (q !== null) {
    if (!sameToken(q, token)) return { ok: false, reason: 'wrong token in the URL' };
    return {
      ok: true,
      setCookie: `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`,
      fromQuery: true,
    };
  }
  const c = cookieValue(req.headers.cookie, COOKIE);
  if (c !== null && sameToken(c, token)) return { ok: true, setCookie: null, fromQuery: false };
  return { ok: false, reason: c === null ? 'no token' : 'wrong token in the cookie' };
}
