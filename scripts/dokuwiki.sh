#!/bin/sh
# Serves Debian's DokuWiki (apt-get install dokuwiki php-cli) on loopback for the benchmarks that
# read real pages (e2e BenchmarkSnapshotChars): a private copy in DIR (the code, its configuration
# and its data, so it can write its caches and locks), then `php -S 127.0.0.1:PORT` in the
# foreground. The install's data (/var/lib/dokuwiki/data) is readable by root and www-data only:
# run it as one of them, or give DIR a copy of data/ first. Safe to rerun on the same DIR.
#   scripts/dokuwiki.sh DIR PORT
# Pages: http://127.0.0.1:PORT/doku.php (start), ?id=wiki:syntax, ?id=wiki:dokuwiki
set -eu
if [ $# -ne 2 ]; then
  echo "usage: $0 DIR PORT" >&2
  exit 2
fi
dir=$1
port=$2
if [ ! -f /usr/share/dokuwiki/doku.php ] || ! command -v php >/dev/null 2>&1; then
  echo "dokuwiki: not installed (apt-get install -y dokuwiki php-cli)" >&2
  exit 3
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if [ ! -f "$dir/www/doku.php" ]; then
  # -L: the package links lib/plugins, lib/tpl and the configuration out of /usr/share.
  cp -rL /usr/share/dokuwiki "$dir/www.tmp"
  cp -rL /etc/dokuwiki "$dir/conf"
  [ -d "$dir/data" ] || cp -r /var/lib/dokuwiki/data "$dir/data"
  # Debian's preload points the configuration at /etc/dokuwiki: this copy reads its own.
  cat >"$dir/www.tmp/inc/preload.php" <<EOF
<?php
if (!defined('DOKU_CONF')) define('DOKU_CONF', '$dir/conf/');
EOF
  cat >"$dir/conf/local.php" <<EOF
<?php
\$conf['savedir'] = '$dir/data';
\$conf['title'] = 'DokuWiki';
EOF
  mv "$dir/www.tmp" "$dir/www"
fi
cd "$dir/www"
exec php -S "127.0.0.1:$port" -t "$dir/www"
