/**
 * The one remote script firedup runs, with the user's path passed as a positional parameter (data, never
 * code). It uses only tools a minimal Linux server has (sh, test, stat or ls, tail, cat) and reports failures
 * as our own exit codes (REMOTE in session.ts) so they are told apart from ssh's 255 and the shell's 127.
 */
import { REMOTE } from './session.js';

const SCRIPT = `set -f
m=$1 p=$2 from=$3
if [ ! -e "$p" ]; then
  d=$p
  while :; do
    case $d in */*) d=\${d%/*} ;; *) break ;; esac
    [ -n "$d" ] || d=/
    if [ -d "$d" ]; then [ -x "$d" ] || exit ${REMOTE.denied}; break; fi
    [ "$d" = / ] && break
  done
  exit ${REMOTE.missing}
fi
[ -d "$p" ] && exit ${REMOTE.directory}
[ -p "$p" ] && exit ${REMOTE.fifo}
[ -S "$p" ] && exit ${REMOTE.socket}
{ [ -c "$p" ] || [ -b "$p" ]; } && exit ${REMOTE.device}
[ -f "$p" ] || exit ${REMOTE.notFile}
rp=$(readlink -f -- "$p" 2>/dev/null) || rp=$p
case $rp in /proc/*|/sys/*) exit ${REMOTE.pseudo} ;; esac
[ -r "$p" ] || exit ${REMOTE.denied}
id=$(stat -L -c '%i %s %Y' -- "$p" 2>/dev/null) ||
  id=$(stat -L -f '%i %z %m' -- "$p" 2>/dev/null) ||
  { set -- $(ls -Lind -- "$p" 2>/dev/null) && [ -n "$6" ] && id="$1 $6"; } ||
  exit ${REMOTE.toolMissing}
case $m in
  stat) printf '%s\\n' "$id" ;;
  stream)
    command -v tail >/dev/null 2>&1 || exit ${REMOTE.toolMissing}
    printf '%s\\n' "$id"
    exec 3<&0 </dev/null
    tail -c "+$from" -f -- "$p" &
    t=$!
    { cat <&3; kill $t; } >/dev/null 2>&1 &
    wait $t ;;
  cat)
    command -v cat >/dev/null 2>&1 || exit ${REMOTE.toolMissing}
    exec cat -- "$p" ;;
  range)
    command -v tail >/dev/null 2>&1 || exit ${REMOTE.toolMissing}
    exec tail -c "+$from" -- "$p" ;;
  head)
    printf '%s\\n' "$id"
    for n in $4 $5; do head -c "$n" -- "$p" | cksum || exit ${REMOTE.toolMissing}; done ;;
esac`;

/**
 * Why a path that is there is no log, told apart the way a local read tells it (sources/file.ts, app/read-log.ts),
 * so the same path gets the same words on either side: a directory, a FIFO, a socket, a device, a kernel
 * pseudo-file (a /proc or /sys entry: /proc/sysrq-trigger is a regular file of size 0 that only takes writes),
 * a file the login may not read. A path that `test -e` does not see is missing only when its nearest
 * directory that is there can be searched: a file inside a directory the login may not enter is there,
 * unreadable, and was called missing. /dev is not refused as such: /dev/shm holds regular files, and its
 * devices are caught by type.
 *
 * `stream`'s tail -f would outlive its ssh session: nothing tells a remote command that the session ended (no
 * pty, so no SIGHUP), and a tail that has nothing to write never meets the SIGPIPE that would end it, so it
 * lived on the server for good once firedup went. Its stdin (fd 3 here) is firedup's side of the channel,
 * never written to: it ends when firedup, its ssh client or the connection goes, and that end kills the tail.
 * The script itself waits for the tail, so a tail that fails ends the stream as before; the watcher's output
 * goes to /dev/null, or it would hold the channel open after the tail.
 *
 * `stat`: the `inode size mtime` line (mtime in epoch seconds; absent where only `ls` could tell). `stream`: that line, then the bytes after `offset`, followed. `cat`: the
 * whole file. `range`: the bytes after `offset` up to the end. `head`: the `inode size` line, then the POSIX
 * `cksum` (CRC and length) of the first N bytes for each N given (how a resumed read knows the file is
 * the one it read before).
 */
export type RemoteMode = 'stat' | 'stream' | 'cat' | 'range' | 'head';

/** argv for the remote side; `stream` starts after `offset` bytes and prints the `inode size` line first. */
export function remoteArgv(mode: RemoteMode, path: string, offset = 0, heads: number[] = []): string[] {
  return ['sh', '-c', SCRIPT, 'firedup', mode, path, String(offset + 1), ...heads.map(String)];
}

/** Parses the `head` mode's output: the file's identity and one `crc:length` per length asked for. */
export function parseHeads(
  text: string,
): { ino: string; size: number; mtime: number | null; heads: string[] } | null {
  const [first, ...rest] = text.trim().split('\n');
  const id = parseIdent(first ?? '');
  if (!id) return null;
  const heads = rest.map((l) => /^(\d+) (\d+)$/.exec(l.trim())).filter((m) => m !== null);
  return { ...id, heads: heads.map((m) => `cksum:${m[1]}:${m[2]}`) };
}

/**
 * Parses the `inode size [mtime]` line. The mtime (epoch seconds) is when the last line arrived as the
 * remote file shows it: the silence clock of a remote log (`progressAt` in core/verdict/verdict.ts).
 */
export function parseIdent(line: string): { ino: string; size: number; mtime: number | null } | null {
  const m = /^(\d+) (\d+)(?: (\d+))?$/.exec(line.trim());
  return m ? { ino: m[1]!, size: Number(m[2]), mtime: m[3] === undefined ? null : Number(m[3]) } : null;
}
