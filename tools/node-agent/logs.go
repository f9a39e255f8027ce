package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/virtual-kubelet/virtual-kubelet/errdefs"
	"github.com/virtual-kubelet/virtual-kubelet/node/api"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	statsv1alpha1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
)

func (rt *podRuntime) container(name string) *container {
	for _, c := range append(append([]*container(nil), rt.inits...), rt.ctrs...) {
		if c.spec.Name == name {
			return c
		}
	}
	return nil
}

// logs serves `kubectl logs`: the current run's output, or the previous
// run's with Previous; tail, byte limit and follow as the kubelet does.
func (rt *podRuntime) logs(ctx context.Context, name string, opts api.ContainerLogOpts) (io.ReadCloser, error) {
	c := rt.container(name)
	if c == nil {
		return nil, errdefs.NotFoundf("container %s is not in pod %s", name, rt.key)
	}
	c.mu.Lock()
	run, exited := c.restarts, c.exited
	running := c.proc != nil
	c.mu.Unlock()
	if opts.Previous {
		if run == 0 {
			return nil, errdefs.InvalidInputf("previous terminated container %q in pod %q not found", name, rt.pod.Name)
		}
		run--
		running = false
	}
	path := c.logPath(run)
	if _, err := os.Stat(path); err != nil && !opts.Previous && run > 0 {
		// Waiting to restart (back-off): as the kubelet, show the last run.
		run--
		path, running = c.logPath(run), false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errdefs.NotFoundf("container %q in pod %q is waiting to start: no logs yet", name, rt.pod.Name)
	}
	if opts.Tail > 0 {
		lines := bytes.SplitAfter(data, []byte("\n"))
		if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
			lines = lines[:len(lines)-1]
		}
		if len(lines) > opts.Tail {
			lines = lines[len(lines)-opts.Tail:]
		}
		data = bytes.Join(lines, nil)
	}
	if opts.LimitBytes > 0 && len(data) > opts.LimitBytes {
		data = data[:opts.LimitBytes]
	}
	if !opts.Follow || !running {
		return io.NopCloser(bytes.NewReader(data)), nil
	}
	offset, _ := fileSize(path)
	pr, pw := io.Pipe()
	go func() {
		defer pw.Close()
		if _, err := pw.Write(data); err != nil {
			return
		}
		f, err := os.Open(path)
		if err != nil {
			return
		}
		defer f.Close()
		_, _ = f.Seek(offset, io.SeekStart)
		r := bufio.NewReader(f)
		for {
			b, err := r.ReadBytes('\n')
			if len(b) > 0 {
				if _, werr := pw.Write(b); werr != nil {
					return
				}
			}
			if err == nil {
				continue
			}
			select {
			case <-ctx.Done():
				return
			case <-exited:
				rest, _ := io.ReadAll(r)
				_, _ = pw.Write(rest)
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	return pr, nil
}

func fileSize(p string) (int64, error) {
	st, err := os.Stat(p)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// exec serves `kubectl exec` without a terminal: the command runs in the
// container's namespaces and root with its environment and user.
func (rt *podRuntime) exec(ctx context.Context, name string, argv []string, attach api.AttachIO) error {
	c := rt.container(name)
	if c == nil {
		return errdefs.NotFoundf("container %s is not in pod %s", name, rt.key)
	}
	if attach.TTY() {
		return fmt.Errorf("terminals are not supported by the process node")
	}
	cmd, err := c.commandIn(argv)
	if err != nil {
		return err
	}
	if attach.Stdin() != nil {
		cmd.Stdin = attach.Stdin()
	}
	if attach.Stdout() != nil {
		cmd.Stdout = attach.Stdout()
	}
	if attach.Stderr() != nil {
		cmd.Stderr = attach.Stderr()
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		err = <-done
	}
	return err
}

// stats reports the resident memory and CPU time of each container's
// processes (its process group), from one reading of /proc for the node.
func (rt *podRuntime) stats(now metav1.Time, usage map[int]processUsage) statsv1alpha1.PodStats {
	ps := statsv1alpha1.PodStats{
		PodRef:    statsv1alpha1.PodReference{Name: rt.pod.Name, Namespace: rt.pod.Namespace, UID: rt.uid},
		StartTime: rt.startTime,
	}
	var podMem, podCPU uint64
	for _, c := range rt.ctrs {
		c.mu.Lock()
		proc := c.proc
		c.mu.Unlock()
		if proc == nil {
			continue
		}
		u := usage[proc.Pid]
		mem, cpu := u.rssBytes, u.cpuNanos
		podMem += mem
		podCPU += cpu
		ps.Containers = append(ps.Containers, statsv1alpha1.ContainerStats{
			Name: c.spec.Name, StartTime: now,
			Memory: &statsv1alpha1.MemoryStats{Time: now, WorkingSetBytes: &mem, RSSBytes: &mem},
			CPU:    &statsv1alpha1.CPUStats{Time: now, UsageCoreNanoSeconds: &cpu},
		})
	}
	ps.Memory = &statsv1alpha1.MemoryStats{Time: now, WorkingSetBytes: &podMem, RSSBytes: &podMem}
	ps.CPU = &statsv1alpha1.CPUStats{Time: now, UsageCoreNanoSeconds: &podCPU}
	return ps
}

var clockTicks = func() uint64 {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if n, perr := strconv.ParseUint(strings.TrimSpace(string(out)), 10, 64); err == nil && perr == nil && n > 0 {
		return n
	}
	return 100
}()

type processUsage struct{ rssBytes, cpuNanos uint64 }

// usageByProcessGroup sums RSS and CPU time of every process by process
// group (a container's processes share its PID as their group).
func usageByProcessGroup() map[int]processUsage {
	entries, _ := os.ReadDir("/proc")
	page := uint64(os.Getpagesize())
	out := map[int]processUsage{}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndex(s, ")")+2:])
		if len(f) < 22 {
			continue
		}
		pgid, _ := strconv.Atoi(f[2])
		ut, _ := strconv.ParseUint(f[11], 10, 64)
		st, _ := strconv.ParseUint(f[12], 10, 64)
		rss, _ := strconv.ParseUint(f[21], 10, 64)
		u := out[pgid]
		u.rssBytes += rss * page
		u.cpuNanos += (ut + st) * uint64(time.Second) / clockTicks
		out[pgid] = u
	}
	return out
}
