"""Packaging: the Debian package made from the build's install rules (CPack), installed into a
scratch root; the manual page against every command's --help; the bash and zsh completions."""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

from support import hail_bin

BUILD = os.path.dirname(os.path.abspath(hail_bin()))
DOCS = os.path.join(BUILD, "docs")


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=300, **kw)


def deb_path():
    """Builds the .deb from this build tree once (CPack reuses what is built: a few seconds)."""
    if not hasattr(deb_path, "path"):
        out = run(["cpack", "-G", "DEB"], cwd=BUILD)
        if out.returncode != 0:
            raise AssertionError("cpack failed:\n" + out.stdout + out.stderr)
        found = [os.path.join(BUILD, "package", f) for f in os.listdir(os.path.join(BUILD, "package"))
                 if f.startswith("hail_") and f.endswith(".deb")]
        if len(found) != 1:
            raise AssertionError("expected one hail_*.deb, found %r" % found)
        deb_path.path = found[0]
    return deb_path.path


@unittest.skipUnless(shutil.which("cpack") and shutil.which("dpkg-deb"), "cpack or dpkg-deb missing")
@unittest.skipUnless(os.path.basename(BUILD) == "release",
                     "the package is made of the release build (this is %s)" % BUILD)
class DebianPackageTest(unittest.TestCase):
    def test_name_files_and_fields(self):
        deb = deb_path()
        self.assertRegex(os.path.basename(deb), r"^hail_0\.1\.0_[a-z0-9]+\.deb$")
        listing = run(["dpkg-deb", "-c", deb]).stdout
        for path in ("./usr/bin/hail", "./usr/share/man/man1/hail.1.gz",
                     "./usr/share/bash-completion/completions/hail",
                     "./usr/share/zsh/vendor-completions/_hail", "./usr/share/doc/hail/README.md",
                     "./usr/share/doc/hail/compat.md", "./usr/share/doc/hail/copyright",
                     "./usr/share/doc/hail/changelog.gz"):
            self.assertIn(" " + path + "\n", listing + "\n", path)
        # The optional links that would shadow wrk, wrk2, ab and webbench are not installed.
        for tool in ("wrk", "wrk2", "ab", "webbench"):
            self.assertNotIn("/usr/bin/" + tool + "\n", listing + "\n")
        fields = run(["dpkg-deb", "-f", deb]).stdout
        depends = re.search(r"^Depends: (.*)$", fields, re.M).group(1)
        for lib in ("libssl3", "zlib1g", "libc6"):
            self.assertIn(lib, depends)  # computed from the binary's shared libraries
        # Release builds link LuaJIT, nghttp2 and liburing from their static archives
        # (cmake/compact_link.cmake): a library the binary does not load is no dependency.
        needed = run(["readelf", "-d", hail_bin()]).stdout
        for soname, package in (("libluajit", "libluajit"), ("libnghttp2", "libnghttp2-14"),
                                ("liburing", "liburing2")):
            if soname in needed:
                self.assertIn(package, depends)
            else:
                self.assertNotIn(package, depends)
        self.assertRegex(fields, r"(?m)^Description: .+\n .+")

    @unittest.skipUnless(shutil.which("lintian"), "lintian missing")
    def test_lintian_finds_no_error(self):
        out = run(["lintian", deb_path()])
        errors = [l for l in out.stdout.splitlines() if l.startswith("E:")]
        self.assertEqual(errors, [], out.stdout)

    def test_installs_into_a_scratch_root(self):
        with tempfile.TemporaryDirectory(prefix="hail_root_") as root:
            admin = os.path.join(root, "var", "lib", "dpkg")
            os.makedirs(os.path.join(admin, "info"))
            os.makedirs(os.path.join(admin, "updates"))
            open(os.path.join(admin, "status"), "w").close()
            out = run(["dpkg", "--root=" + root, "--force-depends", "--force-script-chrootless",
                       "--log=/dev/null", "-i", deb_path()])
            self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
            version = run([os.path.join(root, "usr", "bin", "hail"), "--version"])
            self.assertEqual(version.returncode, 0, version.stderr)
            self.assertTrue(version.stdout.startswith("hail 0.1.0 (commit "), version.stdout)
            if shutil.which("man"):
                page = run(["man", "-l", os.path.join(root, "usr", "share", "man", "man1",
                                                       "hail.1.gz")],
                           env=dict(os.environ, MANWIDTH="120", MAN_KEEP_FORMATTING=""))
                self.assertEqual(page.returncode, 0, page.stderr)
                for heading in ("NAME", "SYNOPSIS", "EXIT STATUS", "FILES", "EXAMPLES"):
                    self.assertIn("\n" + heading + "\n", page.stdout)


def help_texts():
    """Every command's --help (ab: -h), as the user sees it."""
    hail = hail_bin()
    texts = {"": run([hail, "--help"]).stdout, "serve": run([hail, "serve", "--help"]).stdout,
             "wrk": run([hail, "wrk", "--help"]).stdout,
             "wrk2": run([hail, "wrk2", "--help"]).stdout,
             "ab": run([hail, "ab", "-h"]).stderr,
             "webbench": run([hail, "webbench", "--help"]).stderr,
             "report": run([hail, "report", "--help"]).stdout,
             "merge": run([hail, "merge", "--help"]).stdout,
             "compare": run([hail, "compare", "--help"]).stdout,
             "search": run([hail, "search", "--help"]).stdout}
    for name, text in texts.items():
        assert "-" in text, "no help text for %r" % name
    return texts


@unittest.skipUnless(os.path.exists(os.path.join(DOCS, "hail.1.gz")) and shutil.which("man"),
                     "no manual page built (scdoc missing) or no man")
class ManualPageTest(unittest.TestCase):
    def test_every_flag_of_every_help_is_in_the_manual(self):
        page = run(["man", "-l", os.path.join(DOCS, "hail.1.gz")],
                   env=dict(os.environ, MANWIDTH="200")).stdout
        page = re.sub(r".\x08", "", page)  # overstrike bold
        for name, text in help_texts().items():
            flags = set(re.findall(r"(?<![\w-])(--?[A-Za-z0-9?][\w.?-]*)", text))
            self.assertGreaterEqual(len(flags), 2 if name in ("report", "merge") else 4, name)
            for flag in flags:
                self.assertRegex(page, r"(?<![\w-])%s(?![\w-])" % re.escape(flag),
                                 "hail %s: %s is in --help, not in the manual" % (name, flag))


@unittest.skipUnless(os.path.exists(os.path.join(DOCS, "hail.bash")), "completions not built")
class CompletionTest(unittest.TestCase):
    def complete(self, *words, cwd=None):
        """What bash offers after `hail WORDS` (the last word is the one being completed)."""
        script = ('source %s; COMP_WORDS=(hail %s); COMP_CWORD=%d; _hail; '
                  'printf "%%s\\n" "${COMPREPLY[@]}"' %
                  (os.path.join(DOCS, "hail.bash"),
                   " ".join("'%s'" % w for w in words), len(words)))
        out = run(["bash", "--norc", "--noprofile", "-c", script], cwd=cwd)
        self.assertEqual(out.returncode, 0, out.stderr)
        return [l for l in out.stdout.splitlines() if l]

    def test_registered_for_hail(self):
        out = run(["bash", "--norc", "--noprofile", "-c",
                   "source %s; complete -p hail" % os.path.join(DOCS, "hail.bash")])
        self.assertIn("-F _hail hail", out.stdout)

    def test_subcommands_flags_values_and_files(self):
        self.assertEqual(sorted(self.complete("se")), ["search", "serve"])
        self.assertEqual(self.complete("search", "--by", ""), ["rate", "connections"])
        self.assertIn("--connections", self.complete("--conn"))
        self.assertEqual(self.complete("--arrival", ""), ["fixed", "poisson"])
        self.assertEqual(self.complete("--mix", "r"), ["random", "round-robin"])
        self.assertEqual(self.complete("--tls-min", "1."), ["1.0", "1.1", "1.2", "1.3"])
        self.assertIn("--tls-self-signed", self.complete("serve", "--tls-s"))
        self.assertNotIn("--tls-self-signed", self.complete("--tls-s"))  # serve's, not a run's
        with tempfile.TemporaryDirectory() as d:
            open(os.path.join(d, "mix.txt"), "w").close()
            self.assertEqual(self.complete("--urls", "mi", cwd=d), ["mix.txt"])
            self.assertEqual(self.complete("--json", "m", cwd=d), ["mix.txt"])

    @unittest.skipUnless(shutil.which("zsh"), "zsh missing")
    def test_zsh_script_loads(self):
        with tempfile.TemporaryDirectory() as d:
            shutil.copy(os.path.join(DOCS, "_hail"), d)
            out = run(["zsh", "-f", "-c", "fpath=(%s $fpath); autoload -U compinit; compinit -u -D; "
                       "print -r -- ${_comps[hail]}" % d])
            self.assertEqual(out.stdout.strip(), "_hail", out.stdout + out.stderr)
            self.assertEqual(run(["zsh", "-n", os.path.join(d, "_hail")]).returncode, 0)


if __name__ == "__main__":
    unittest.main()
