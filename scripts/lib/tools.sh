# Shared by scripts/test: the real programs the tests drive (libfaketime for a skewed host
# clock, and whatever later suites add), installed from Debian's packages when missing and
# this runs as root. Without root, a missing one is named, and the tests that need it fail
# saying what to install.
#
#   tools_ensure CMD:PACKAGE ...   e.g. tools_ensure faketime:faketime groff:groff
#   CMD may be a path or a glob (anything with a /): then it must exist, e.g.
#   /usr/share/wordpress/wp-load.php:wordpress

tools_ensure() {
    local missing=() pair cmd pkg
    for pair in "$@"; do
        cmd="${pair%%:*}"
        pkg="${pair#*:}"
        case "$cmd" in
            */*) compgen -G "$cmd" >/dev/null || missing+=("$pkg") ;;
            *) command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg") ;;
        esac
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "scripts/test: installing ${missing[*]} (Debian packages the tests use)" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2 \
            || { DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 \
                 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2; }
    else
        echo "scripts/test: warning: ${missing[*]} missing (install them, or run as root to have them installed); the tests that use them will fail" >&2
    fi
}
