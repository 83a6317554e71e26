#!/bin/sh
# install.sh - `cmake --install` into a temporary prefix, then use what was
# installed as someone else would: a C program built through pkg-config alone
# (shared and static library) that writes the same plan bytes as the
# installed command; only ksample.h's functions exported; the soname; a man
# page per command that groff reads without a warning; bash completion of
# commands, options and method names.
# usage: tests/install.sh BUILD_DIR SOURCE_ROOT
KS=install
B=$1
ROOT=$2
. "$(dirname "$0")/lib.sh"
P="$T/prefix"
EXAMPLE="$ROOT/examples/casio-like-50k.csv.xz"

expect 0 cmake --install "$B" --prefix "$P"
LIBDIR=$(sed -n 's/^libdir=//p' "$P"/lib*/pkgconfig/ksample.pc 2>/dev/null | head -1 | sed "s|\${prefix}|$P|")
[ -n "$LIBDIR" ] || bad "no ksample.pc under $P/lib*/pkgconfig"
LIBDIR=${LIBDIR:-$P/lib}
VERSION=$(sed -n 's/^#define KS_VERSION "\(.*\)"/\1/p' "$ROOT/lib/ksample.h")
SOVERSION=${VERSION%.*}
for f in bin/ksample include/ksample.h share/man/man1/ksample.1 \
    share/bash-completion/completions/ksample; do
    [ -f "$P/$f" ] || bad "not installed: $f"
done
for f in libksample.a "libksample.so.$VERSION"; do
    [ -f "$LIBDIR/$f" ] || bad "not installed: $LIBDIR/$f"
done
[ "$(readlink "$LIBDIR/libksample.so")" = "libksample.so.$SOVERSION" ] || bad "libksample.so is not a link to libksample.so.$SOVERSION"
[ "$(readlink "$LIBDIR/libksample.so.$SOVERSION")" = "libksample.so.$VERSION" ] || bad "libksample.so.$SOVERSION is not a link to libksample.so.$VERSION"
readelf -d "$LIBDIR/libksample.so.$VERSION" | grep -q "SONAME.*\[libksample.so.$SOVERSION\]" ||
    bad "soname is not libksample.so.$SOVERSION"

# exported: exactly the functions ksample.h declares (static inline ones aside)
cc -E -P "$P/include/ksample.h" >"$T/h.i"
grep -oE '\bks_[a-z0-9_]+ ?\([^*]' "$T/h.i" | sed 's/ *(.*//' | sort -u >"$T/declared"
grep 'static inline' "$T/h.i" | grep -oE '\bks_[a-z0-9_]+ ?\(' | sed 's/ *(//' | sort -u >"$T/inline"
comm -23 "$T/declared" "$T/inline" >"$T/public"
nm -D --defined-only "$LIBDIR/libksample.so.$VERSION" | awk '{print $3}' | sort >"$T/exported"
[ "$(wc -l <"$T/public")" -gt 100 ] || bad "found only $(wc -l <"$T/public") declarations in ksample.h"
comm -3 "$T/public" "$T/exported" >"$T/diff"
[ -s "$T/diff" ] && bad "exported and declared differ (left: declared only, right: exported only): $(tr '\n' ' ' <"$T/diff")"

# a user's program through pkg-config alone: the shared library, then the
# static one; each writes the plan the installed command writes
export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
expect 0 pkg-config --exists ksample
[ "$(pkg-config --modversion ksample)" = "$VERSION" ] || bad "pkg-config --modversion: $(pkg-config --modversion ksample)"
# shellcheck disable=SC2046
expect 0 cc -o "$T/user" "$ROOT/tests/install/user.c" $(pkg-config --cflags --libs ksample)
ldd "$T/user" 2>/dev/null | grep -q "libksample.so.$SOVERSION => $LIBDIR/" || {
    # the loader looks in the prefix only when told (a non-system prefix)
    LD_LIBRARY_PATH="$LIBDIR" ldd "$T/user" | grep -q "libksample.so.$SOVERSION => $LIBDIR/" ||
        bad "user is not linked with the installed libksample.so.$SOVERSION"
}
# ks_plan_build plans on the launches given: the command with --include-comm
# (by default it leaves NCCL out first, ks_profile_leave_out_comm; docs/llm.md)
expect 0 "$P/bin/ksample" sample --include-comm --key name "$EXAMPLE" -o "$T/cli.json"
expect 0 env LD_LIBRARY_PATH="$LIBDIR" "$T/user" "$EXAMPLE" "$T/shared.json"
grep -q "50000 launches, root plan" "$T/out" || bad "user printed: $(cat "$T/out")"
cmp -s "$T/cli.json" "$T/shared.json" || bad "the shared library's plan differs from the command's"
STATIC_LIBS=$(pkg-config --static --libs ksample | sed "s|-lksample|$LIBDIR/libksample.a|")
# shellcheck disable=SC2086
expect 0 cc -o "$T/user-static" "$ROOT/tests/install/user.c" $(pkg-config --cflags ksample) $STATIC_LIBS
ldd "$T/user-static" | grep -q libksample && bad "user-static loads libksample.so"
expect 0 "$T/user-static" "$EXAMPLE" "$T/static.json"
cmp -s "$T/cli.json" "$T/static.json" || bad "the static library's plan differs from the command's"
# errors come back through the library, nothing printed by it
expect 3 env LD_LIBRARY_PATH="$LIBDIR" "$T/user" "$T/none.csv" "$T/x.json"
[ "$(cat "$T/err")" = "user: $T/none.csv: cannot open: No such file or directory" ] ||
    bad "error of a missing file: $(cat "$T/err")"

# a man page per command, each read by groff without a warning
commands=$("$P/bin/ksample" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 {print $1}')
[ "$(echo "$commands" | wc -w)" -ge 14 ] || bad "commands: $commands"
for c in "" $commands; do
    page="$P/share/man/man1/ksample${c:+-$c}.1"
    [ -f "$page" ] || { bad "no man page for '$c'"; continue; }
    if command -v groff >/dev/null; then
        groff -man -Tutf8 -ww -z "$page" >"$T/groff" 2>&1 || bad "groff failed on $page"
        [ -s "$T/groff" ] && bad "groff warns on $page: $(head -3 "$T/groff")"
    fi
done
page="$P/share/man/man1/ksample-sample.1"
grep -q '^\.SH "OPTIONS"' "$page" || bad "ksample-sample.1 has no OPTIONS"
# the method parameters come from the methods' tables, as in --help
grep -q 'allocation' "$page" && grep -q 'joint' "$page" || bad "ksample-sample.1 lacks --allocation"
if command -v man >/dev/null; then
    MANWIDTH=80 man -l "$page" 2>/dev/null >"$T/man.txt"
    grep -q -- '--epsilon E' "$T/man.txt" || bad "man ksample-sample shows no --epsilon E"
fi

# bash completion: commands, a command's options, method names, choices
COMP="$P/share/bash-completion/completions/ksample"
complete_words() {
    # complete_words WORD... : what completing the last word offers
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ksample; echo "${COMPREPLY[*]}"' \
        sh "$COMP" "$@" 2>&1
}
[ "$(complete_words ksample sa)" = "sample" ] || bad "ksample sa<TAB>: $(complete_words ksample sa)"
[ "$(complete_words ksample sample --meth)" = "--method" ] || bad "sample --meth<TAB>: $(complete_words ksample sample --meth)"
methods=$("$P/bin/ksample" formats | sed -n '/^methods:/,$p' | awk 'NF > 1 {print $1}' | tr '\n' ' ' | sed 's/ $//')
[ "$(complete_words ksample sample --method '')" = "$methods" ] || bad "--method <TAB>: '$(complete_words ksample sample --method '')', wanted '$methods'"
[ "$(complete_words ksample eval --methods root,st)" = "root,stem" ] || bad "--methods root,st<TAB>: $(complete_words ksample eval --methods root,st)"
[ "$(complete_words ksample sample --allocation '')" = "joint tree paper" ] || bad "--allocation <TAB>: $(complete_words ksample sample --allocation '')"
[ "$(complete_words ksample sample --method = r)" = "root random" ] || bad "--method=r<TAB>: $(complete_words ksample sample --method = r)"
complete_words ksample estimate --j | grep -qx -- "--json" || bad "estimate --j<TAB>: $(complete_words ksample estimate --j)"
summary
