#!/usr/bin/env node
// `npm test`: says, before anything runs, what the suite installs and starts on this machine.
process.stderr.write(`firedup tests: rebuild dist/ (tsc + bundle), then run dist/test/ beside a decoy SGLang-looking server
(scripts/with-decoy.mjs): two files at a time (FIREDUP_TEST_CONCURRENCY=N: N at a time), then the files that
race a clock one by one (scripts/run-tests.mjs). Where missing, the setup installs with
apt-get (as root, as a fresh CI machine runs): openssh-server (a throwaway sshd on 127.0.0.1 with its own keys),
postgresql (initdb in a temp dir, Unix socket only; as nobody when root), chromium (headless, for the
dashboard), prometheus (scrapes \`serve\`), docker.io (starts dockerd when none answers);
scripts/llama-server-setup.sh unpacks Debian's CPU llama-server and a tiny model into a cache dir (no root;
FIREDUP_NO_LLAMA=1 skips those tests). It needs network to the Debian mirror; a setup that cannot install says
why and its tests fail or skip.
`);
