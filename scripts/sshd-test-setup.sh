#!/bin/sh
# Installs Debian's openssh-server when missing, for the SSH tests (test/ssh.ts starts its own throwaway
# sshd on 127.0.0.1; the machine's sshd service is never started or configured). CI runs this as root.
set -eu
if [ ! -x /usr/sbin/sshd ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssh-server
fi
command -v ssh >/dev/null && command -v ssh-keygen >/dev/null
