/** Postgres's and the network's errors as the one-line LedgerError the faces print, naming the URL redacted. */
import { redactText } from '../../core/config/redact.js';
import { LedgerError } from '../types.js';

const AGAIN = 'pass --ledger (or FIREDUP_LEDGER) to use another ledger';

/** The URL as printed anywhere: a password in it (`user:pass@`, `?password=`) is masked. */
export function displayUrl(url: string): string {
  return redactText(url);
}

function detail(e: unknown): string {
  const m = (e as Error)?.message ?? String(e);
  return m.split('\n')[0]!.trim();
}

/** Node's TLS codes for a certificate that does not verify (tls.TLSSocket#authorizationError). */
const CERT_CODES =
  /^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|CERT_UNTRUSTED|ERR_TLS_CERT_ALTNAME_INVALID)$/;

/**
 * What went wrong with SSL, said with what to change in the URL (sslmode and sslrootcert as libpq reads them),
 * or null when it is not an SSL problem.
 */
function tlsProblem(e: unknown): string | null {
  const code = String((e as { code?: unknown }).code ?? '');
  const msg = detail(e);
  if (CERT_CODES.test(code))
    return `the server's certificate does not verify (${redactText(msg)}); add sslrootcert=FILE (the CA that signed it) to the URL, or sslmode=require to encrypt without verifying`;
  if (/server does not support SSL/i.test(msg))
    return 'the server does not take SSL connections; drop sslmode from the URL (or ask for SSL on the server)';
  if (/sslmode=verify-ca requires specifying a CA/.test(msg))
    return 'sslmode=verify-ca needs the CA to verify against: add sslrootcert=FILE to the URL';
  // pg-connection-string reads sslrootcert/sslcert/sslkey as it connects: a missing file is the URL's mistake.
  const file = (e as { path?: unknown }).path;
  if ((code === 'ENOENT' || code === 'EACCES') && typeof file === 'string')
    return `${file} (named by sslrootcert, sslcert or sslkey): ${code === 'ENOENT' ? 'no such file' : 'permission denied'}; fix the path in the URL`;
  return null;
}

/** A connection that never came up, or broke: network errors, the server shutting down, a timeout. */
function connectionLost(e: unknown): boolean {
  const code = String((e as { code?: unknown }).code ?? '');
  if (
    /^(ECONNREFUSED|ECONNRESET|ENOENT|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE)$/.test(
      code,
    )
  )
    return true;
  // SQLSTATE class 08: connection exception; 57P01-3: the server shut down or is starting.
  if (/^08/.test(code) || /^57P0[123]$/.test(code)) return true;
  return /Connection terminated|timeout expired|Query read timeout|connection timeout|Client has encountered a connection error|not queryable/i.test(
    detail(e),
  );
}

/**
 * `writing`: the error came inside a transaction, which Postgres rolled back: the message says nothing of
 * it was kept, so the user knows the launch is not half-recorded.
 */
export function pgLedgerError(e: unknown, where: string, writing = false): unknown {
  if (e instanceof LedgerError) return e;
  if (e instanceof SyntaxError)
    return new LedgerError(
      'corrupt',
      `ledger ${where} is damaged (a record does not read back: ${e.message}); ${AGAIN}`,
    );
  const code = String((e as { code?: unknown }).code ?? '');
  const why = redactText(detail(e));
  const tls = tlsProblem(e);
  if (tls) return new LedgerError('unreachable', `ledger ${where}: ${tls}`);
  if (connectionLost(e)) {
    const lost = writing ? '; nothing of this write was kept' : '';
    return new LedgerError(
      'unreachable',
      `cannot reach ledger ${where}: ${why}${lost}; check that the Postgres server is up and the URL is right, or ${AGAIN}`,
    );
  }
  if (code === '28000' && /no encryption/.test(why))
    return new LedgerError(
      'denied',
      `ledger ${where}: ${why}; the server takes SSL connections only: add sslmode=require (or verify-full with sslrootcert=FILE) to the URL`,
    );
  if (code === '28P01' || code === '28000')
    return new LedgerError(
      'denied',
      `ledger ${where}: ${why}; check the user and password (in the URL, PGPASSWORD or ~/.pgpass), or ${AGAIN}`,
    );
  if (code === '3D000')
    return new LedgerError(
      'unreachable',
      `ledger ${where}: ${why}; create it (createdb) or name another database`,
    );
  if (code === '42501' || code === '25006')
    return new LedgerError(
      'unwritable',
      `cannot write ledger ${where}: ${why}; ask for write access, or ${AGAIN}`,
    );
  if (code === '40001' || code === '40P01' || code === '53300' || code === '55P03')
    return new LedgerError('busy', `ledger ${where} is busy (${why}); try again`);
  if (/^(22|23)/.test(code) || code === '42P01' || code === '42703')
    return new LedgerError('corrupt', `ledger ${where} does not hold what firedup wrote (${why}); ${AGAIN}`);
  return e;
}
