/**
 * `docker://NAME` (or a container id) for a container on this machine's daemon, and `docker://HOST/NAME` for one on
 * another machine's daemon, reached as the docker CLI reaches it (`-H ssh://HOST`: nothing installed there but
 * docker itself). The scheme keeps it apart from scp's `host:path`, which never has `//` after the colon.
 */

export interface DockerTarget {
  kind: 'docker';
  /** The ssh destination of the daemon's machine (`user@host:port` as written), or null for this machine's. */
  host: string | null;
  /** The container's name or id, as given: passed to docker as one argument, never through a shell. */
  name: string;
  /** `--ssh-config` and `--ssh-option`, for the ssh the docker CLI runs to reach `host` (cli.ts). */
  ssh?: DockerSsh;
}

/** The ssh client's settings firedup was given (`-F FILE`, `-o KEY=VALUE`), as SshSession takes them. */
export interface DockerSsh {
  config?: string;
  options?: readonly string[];
}

/** A host as ssh accepts it: a name, an IPv4 address or a bracketed IPv6 address; an optional user and port. */
const SSH_DEST = /^(?:[^@:/\s-][^@:/\s]*@)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_][A-Za-z0-9_.-]*)(?::\d{1,5})?$/;

export function isDockerTarget(arg: string): boolean {
  return arg.startsWith('docker://');
}

export function parseDockerTarget(arg: string): DockerTarget {
  const rest = arg.slice('docker://'.length);
  const slash = rest.lastIndexOf('/');
  const host = slash >= 0 ? rest.slice(0, slash) : null;
  const name = slash >= 0 ? rest.slice(slash + 1) : rest;
  if (name === '')
    throw new Error(
      `${arg}: no container after docker:// (docker://NAME, or docker://HOST/NAME for another machine)`,
    );
  // A leading `-` would read as an option to docker; a NUL cannot be an argument at all.
  if (name.startsWith('-') || name.includes('\0'))
    throw new Error(`${arg}: '${name}' is not a container name (names start with a letter or digit)`);
  if (host !== null && !SSH_DEST.test(host))
    throw new Error(`${arg}: '${host}' is not an ssh host ([user@]host[:port]) for docker://HOST/NAME`);
  return { kind: 'docker', host, name };
}

/** How the target is named in messages and in the ledger: as the user wrote it. */
export function describeDocker(t: DockerTarget): string {
  return `docker://${t.host ? `${t.host}/` : ''}${t.name}`;
}
