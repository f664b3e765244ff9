/**
 * Headless Chromium for the dashboard tests: Debian's `chromium` package driven by playwright-core, never a
 * browser download. Installs the package when /usr/bin/chromium is missing (CI is a fresh Debian machine
 * and runs as root, as for the sshd tests in ssh.ts).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** No sandbox (root in CI), no GPU, and nothing that reaches out to the network by itself. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function ensureChromium(): void {
  if (fs.existsSync(CHROMIUM)) return;
  if (process.getuid?.() !== 0)
    throw new Error(`${CHROMIUM} is missing and installing it needs root: apt-get install chromium`);
  execFileSync(
    'sh',
    [
      '-c',
      'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium',
    ],
    { stdio: 'ignore', timeout: 600_000 },
  );
}

export async function launchBrowser(): Promise<Browser> {
  ensureChromium();
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
