package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

const containerInitCommand = "container-init"

// mountSpec is one bind mount into the container's root. Expandable binds
// (the host's system directories and the image's files) are read-only; when
// another mount lands inside one, it is replaced by binds of its entries so
// that the mount point can be made without writing to the host.
type mountSpec struct {
	Source     string `json:"source"`
	Target     string `json:"target"`
	ReadOnly   bool   `json:"readOnly"`
	Expandable bool   `json:"expandable"`
	Recursive  bool   `json:"recursive"`
	// Dev makes Target a fresh /dev: a tmpfs with the usual device nodes
	// bound from the host, /dev/shm and the fd symlinks, as runtimes build it.
	Dev bool `json:"dev,omitempty"`
}

// initSpec is what the agent tells container-init, which runs already inside
// the pod's network namespace and in a new mount and UTS namespace.
type initSpec struct {
	Hostname     string      `json:"hostname"`
	Root         string      `json:"root"`
	Mounts       []mountSpec `json:"mounts"`
	ReadOnlyRoot bool        `json:"readOnlyRoot"`
	WorkingDir   string      `json:"workingDir"`
	Argv         []string    `json:"argv"`
	Env          []string    `json:"env"`
	UID          int         `json:"uid"`
	GID          int         `json:"gid"`
	Groups       []int       `json:"groups"`
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "container-init: "+format+"\n", args...)
	os.Exit(128)
}

func containerInit(args []string) {
	if len(args) != 1 {
		fail("usage: container-init SPEC.json")
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		fail("%v", err)
	}
	var s initSpec
	if err := json.Unmarshal(b, &s); err != nil {
		fail("spec: %v", err)
	}
	// Nothing mounted here may propagate back to the host.
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		fail("make mounts private: %v", err)
	}
	if s.Hostname != "" {
		if err := syscall.Sethostname([]byte(s.Hostname)); err != nil {
			fail("sethostname: %v", err)
		}
	}
	if err := syscall.Mount("tmpfs", s.Root, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=755,size=256m"); err != nil {
		fail("root tmpfs: %v", err)
	}
	for _, m := range expandMounts(s.Mounts) {
		if err := bindInto(s.Root, m); err != nil {
			fail("mount %s at %s: %v", m.Source, m.Target, err)
		}
	}
	// Images have a world-writable /tmp; unless a volume is mounted there, so does this root.
	if tmp := filepath.Join(s.Root, "tmp"); !exists(tmp) {
		if err := os.Mkdir(tmp, 0o777); err != nil {
			fail("/tmp: %v", err)
		}
		_ = os.Chmod(tmp, 0o1777|os.ModeSticky)
	}
	wd := s.WorkingDir
	if wd == "" {
		wd = "/"
	}
	_ = os.MkdirAll(filepath.Join(s.Root, wd), 0o755) // as runtimes do; fails harmlessly inside a read-only bind
	if s.ReadOnlyRoot {
		if err := syscall.Mount("", s.Root, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
			fail("read-only root: %v", err)
		}
	}
	if err := syscall.Chroot(s.Root); err != nil {
		fail("chroot: %v", err)
	}
	if err := syscall.Chdir(wd); err != nil {
		fail("working directory %s: %v", wd, err)
	}
	if err := syscall.Setgroups(s.Groups); err != nil {
		fail("setgroups: %v", err)
	}
	if err := syscall.Setgid(s.GID); err != nil {
		fail("setgid: %v", err)
	}
	if err := syscall.Setuid(s.UID); err != nil {
		fail("setuid: %v", err)
	}
	if len(s.Argv) == 0 {
		fail("no command")
	}
	bin := s.Argv[0]
	if !strings.Contains(bin, "/") {
		for _, e := range s.Env {
			if strings.HasPrefix(e, "PATH=") {
				os.Setenv("PATH", e[5:])
			}
		}
		p, err := exec.LookPath(bin)
		if err != nil {
			fmt.Fprintf(os.Stderr, "exec: %q: executable file not found in $PATH\n", bin)
			os.Exit(127)
		}
		bin = p
	}
	err = syscall.Exec(bin, s.Argv, s.Env)
	fmt.Fprintf(os.Stderr, "exec %s: %v\n", bin, err)
	if os.IsNotExist(err) {
		os.Exit(127)
	}
	os.Exit(126)
}

func under(parent, p string) bool {
	return parent == "/" || strings.HasPrefix(p, strings.TrimSuffix(parent, "/")+"/")
}

// expandMounts replaces every expandable bind that has another mount inside
// it by binds of its entries, until none does; the result is ordered so that
// parents come before the mounts inside them.
func expandMounts(in []mountSpec) []mountSpec {
	ms := append([]mountSpec(nil), in...)
	for changed := true; changed; {
		changed = false
		for i, m := range ms {
			if !m.Expandable {
				continue
			}
			inside := false
			for j, o := range ms {
				if i != j && under(m.Target, o.Target) {
					inside = true
					break
				}
			}
			if !inside {
				continue
			}
			st, err := os.Stat(m.Source)
			if err != nil || !st.IsDir() {
				continue
			}
			entries, _ := os.ReadDir(m.Source)
			repl := []mountSpec{{Source: "", Target: m.Target}} // a plain directory in the tmpfs root
			for _, e := range entries {
				t := filepath.Join(m.Target, e.Name())
				taken := false
				for _, o := range ms {
					if o.Target == t {
						taken = true
					}
				}
				if !taken {
					repl = append(repl, mountSpec{Source: filepath.Join(m.Source, e.Name()), Target: t, ReadOnly: m.ReadOnly, Expandable: true, Recursive: m.Recursive})
				}
			}
			ms = append(append(ms[:i:i], repl...), ms[i+1:]...)
			changed = true
			break
		}
	}
	sort.SliceStable(ms, func(a, b int) bool {
		return strings.Count(ms[a].Target, "/") < strings.Count(ms[b].Target, "/")
	})
	return ms
}

var devNodes = []string{"null", "zero", "full", "random", "urandom", "tty"}

func makeDev(target string) error {
	if err := os.MkdirAll(target, 0o755); err != nil {
		return err
	}
	if err := syscall.Mount("tmpfs", target, "tmpfs", syscall.MS_NOSUID|syscall.MS_NOEXEC, "mode=755,size=65536k"); err != nil {
		return err
	}
	for _, d := range devNodes {
		p := filepath.Join(target, d)
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o666)
		if err != nil {
			return err
		}
		f.Close()
		if err := syscall.Mount("/dev/"+d, p, "", syscall.MS_BIND, ""); err != nil {
			return err
		}
	}
	for name, dest := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(dest, filepath.Join(target, name)); err != nil {
			return err
		}
	}
	shm := filepath.Join(target, "shm")
	if err := os.MkdirAll(shm, 0o1777); err != nil {
		return err
	}
	return syscall.Mount("shm", shm, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "mode=1777,size=65536k")
}

func bindInto(root string, m mountSpec) error {
	target := filepath.Join(root, m.Target)
	if m.Dev {
		return makeDev(target)
	}
	if m.Source == "" {
		return os.MkdirAll(target, 0o755)
	}
	if link, err := os.Readlink(m.Source); err == nil && m.Expandable {
		// Merged-/usr symlinks (/bin -> usr/bin) stay symlinks.
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.Symlink(link, target)
	}
	st, err := os.Stat(m.Source)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	if st.IsDir() {
		if err := os.MkdirAll(target, 0o755); err != nil {
			return err
		}
	} else if _, err := os.Lstat(target); os.IsNotExist(err) {
		f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		f.Close()
	}
	flags := uintptr(syscall.MS_BIND)
	if m.Recursive || st.IsDir() {
		flags |= syscall.MS_REC
	}
	if err := syscall.Mount(m.Source, target, "", flags, ""); err != nil {
		return err
	}
	if m.ReadOnly {
		return syscall.Mount("", target, "", flags|syscall.MS_REMOUNT|syscall.MS_RDONLY, "")
	}
	return nil
}
