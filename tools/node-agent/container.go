package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

const (
	initialBackoff = 10 * time.Second
	maxBackoff     = 5 * time.Minute
	// As the kubelet: a container that ran this long starts its backoff afresh.
	backoffReset = 10 * time.Minute
)

// container is one container of a pod: its current process, its state and
// last state, restart count, and the readiness its probes established.
type container struct {
	rt   *podRuntime
	spec corev1.Container
	init bool

	mu        sync.Mutex
	restarts  int32
	state     corev1.ContainerState
	last      corev1.ContainerState
	ready     bool
	started   bool
	proc      *os.Process
	exited    chan struct{}
	killing   string // why the agent is stopping the current process
	startedOK chan struct{}
	startOnce sync.Once
	imageID   string
}

func newContainer(rt *podRuntime, spec corev1.Container, init bool) *container {
	return &container{
		rt: rt, spec: spec, init: init,
		state:     corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}},
		startedOK: make(chan struct{}),
	}
}

func (c *container) containerID() string {
	return fmt.Sprintf("cvproc://%s-%s-%d", c.rt.uid[:8], c.spec.Name, c.restarts)
}

func (c *container) logPath(restart int32) string {
	return filepath.Join(c.rt.dir, "logs", c.spec.Name, fmt.Sprintf("%d.log", restart))
}

// terminationLog is the host file behind the container's terminationMessagePath.
func (c *container) terminationLog() string {
	return filepath.Join(c.rt.dir, "run", c.spec.Name+".termination-log")
}

// terminationMessage is what the kubelet reports of an exit: the message the
// container wrote, else (FallbackToLogsOnError, failed) its log's tail.
func (c *container) terminationMessage(code int, restart int32) string {
	b, _ := os.ReadFile(c.terminationLog())
	if len(b) > 4096 {
		b = b[:4096]
	}
	if len(b) > 0 || code == 0 || c.spec.TerminationMessagePolicy != corev1.TerminationMessageFallbackToLogsOnError {
		return string(b)
	}
	logs, _ := os.ReadFile(c.logPath(restart))
	lines := strings.Split(strings.TrimRight(string(logs), "\n"), "\n")
	if len(lines) > 80 {
		lines = lines[len(lines)-80:]
	}
	msg := strings.Join(lines, "\n")
	if len(msg) > 2048 {
		msg = msg[len(msg)-2048:]
	}
	return msg
}

func (c *container) setWaiting(reason, message string) {
	c.mu.Lock()
	c.state = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}
	c.mu.Unlock()
	c.rt.changed()
}

// startError is a failure before the process exists (image, configuration);
// the kubelet reports these as a Waiting reason and retries.
type startError struct{ reason, message string }

func (e *startError) Error() string { return e.message }

// start launches the container's process: nsenter into the pod's network
// namespace, then container-init in fresh mount and UTS namespaces.
func (c *container) start() error {
	rt := c.rt
	img, ok := rt.p.cfg.images.lookup(c.spec.Image)
	if !ok {
		return &startError{"ErrImageNeverPull", fmt.Sprintf("Container image %q is not present on this node and cannot be pulled: the node agent's image map has no program for it", c.spec.Image)}
	}
	c.imageID = "cvimage://" + img.Pattern
	spec, err := c.initSpec(img)
	if err != nil {
		return err
	}
	c.mu.Lock()
	restart := c.restarts
	c.mu.Unlock()
	runDir := filepath.Join(rt.dir, "run")
	if err := os.MkdirAll(filepath.Dir(c.logPath(restart)), 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(runDir, "root-"+c.spec.Name), 0o755); err != nil {
		return err
	}
	spec.Root = filepath.Join(runDir, "root-"+c.spec.Name)
	if err := os.WriteFile(c.terminationLog(), nil, 0o666); err != nil {
		return err
	}
	_ = os.Chmod(c.terminationLog(), 0o666)
	specFile := filepath.Join(runDir, c.spec.Name+".json")
	b, _ := json.Marshal(spec)
	if err := os.WriteFile(specFile, b, 0o600); err != nil {
		return err
	}
	logf, err := os.OpenFile(c.logPath(restart), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command("nsenter", "--net=/run/netns/"+rt.netns, "--", rt.p.self, containerInitCommand, specFile)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWUTS,
		Setpgid:    true,
	}
	if err := cmd.Start(); err != nil {
		return &startError{"RunContainerError", err.Error()}
	}
	exited := make(chan struct{})
	now := metav1.Now()
	c.mu.Lock()
	c.proc, c.exited, c.killing = cmd.Process, exited, ""
	c.state = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
	c.ready = false
	c.started = c.spec.StartupProbe == nil
	c.mu.Unlock()
	klog.InfoS("Started container", "pod", rt.key, "container", c.spec.Name, "pid", cmd.Process.Pid)
	rt.event(corev1.EventTypeNormal, "Started", "Started container %s", c.spec.Name)
	go func() {
		err := cmd.Wait()
		// The container's PID 1 is gone: as with a PID namespace, nothing it left behind survives it.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		code, reason := 0, "Completed"
		var signal int32
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				signal = int32(ws.Signal())
				code = 128 + int(ws.Signal())
			} else {
				code = ee.ExitCode()
			}
		} else if err != nil {
			code = 128
		}
		if code != 0 {
			reason = "Error"
		}
		msg := c.terminationMessage(code, restart)
		c.mu.Lock()
		if msg == "" {
			msg = c.killing
		}
		c.state = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: int32(code), Signal: signal, Reason: reason, Message: msg,
			StartedAt: now, FinishedAt: metav1.Now(), ContainerID: c.containerID(),
		}}
		c.ready = false
		c.proc = nil
		c.mu.Unlock()
		klog.InfoS("Container exited", "pod", rt.key, "container", c.spec.Name, "exitCode", code)
		// Published before anyone waiting on the exit moves on.
		rt.changed()
		close(exited)
	}()
	c.startProbes(exited)
	rt.changed()
	return nil
}

// runOnce starts the process (retrying, as the kubelet does, while it cannot
// be created: image, configuration) and waits for it to end; false when the
// pod is being stopped.
func (c *container) runOnce() (*corev1.ContainerStateTerminated, bool) {
	for {
		if err := c.start(); err != nil {
			var se *startError
			if errors.As(err, &se) {
				c.setWaiting(se.reason, se.message)
				c.rt.event(corev1.EventTypeWarning, "Failed", "Error: %s", se.message)
			} else {
				c.setWaiting("CreateContainerError", err.Error())
			}
			if !c.sleep(3 * time.Second) {
				return nil, false
			}
			continue
		}
		c.mu.Lock()
		exited := c.exited
		c.mu.Unlock()
		select {
		case <-exited:
		case <-c.rt.ctx.Done():
			<-exited
			return nil, false
		}
		c.mu.Lock()
		t := c.state.Terminated
		c.mu.Unlock()
		return t, true
	}
}

// runToCompletion runs an init container until it succeeds (true), restarting
// it with backoff unless the pod's policy is Never.
func (c *container) runToCompletion() bool {
	backoff := time.Duration(0)
	for {
		t, ok := c.runOnce()
		if !ok {
			return false
		}
		if t.ExitCode == 0 {
			return true
		}
		if c.rt.restartPolicy() == corev1.RestartPolicyNever {
			c.rt.mu.Lock()
			c.rt.failed = "Failed"
			c.rt.mu.Unlock()
			c.rt.changed()
			return false
		}
		if backoff = nextBackoff(backoff); !c.backOff(backoff) {
			return false
		}
	}
}

func nextBackoff(prev time.Duration) time.Duration {
	if prev == 0 {
		return initialBackoff
	}
	if prev*2 > maxBackoff {
		return maxBackoff
	}
	return prev * 2
}

// backOff records the finished run as last state, shows CrashLoopBackOff for
// the delay, and counts the restart.
func (c *container) backOff(delay time.Duration) bool {
	c.mu.Lock()
	c.last = c.state
	c.restarts++
	c.state = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
		Reason:  "CrashLoopBackOff",
		Message: fmt.Sprintf("back-off %s restarting failed container=%s pod=%s_%s(%s)", delay, c.spec.Name, c.rt.pod.Name, c.rt.pod.Namespace, c.rt.uid),
	}}
	c.mu.Unlock()
	c.rt.changed()
	if delay > 0 {
		c.rt.event(corev1.EventTypeWarning, "BackOff", "Back-off restarting failed container %s in pod %s", c.spec.Name, c.rt.pod.Name)
	}
	return c.sleep(delay)
}

func (c *container) sleep(d time.Duration) bool {
	select {
	case <-c.rt.ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// supervise keeps a regular (or sidecar) container running under the pod's
// restart policy: the first restart is immediate, later ones back off
// 10 s, 20 s, ... up to 5 min, reset after 10 min of running.
func (c *container) supervise() {
	policy := c.rt.restartPolicy()
	if c.init {
		policy = corev1.RestartPolicyAlways
	}
	backoff := time.Duration(-1)
	for {
		t, ok := c.runOnce()
		if !ok {
			return
		}
		if policy == corev1.RestartPolicyNever || (policy == corev1.RestartPolicyOnFailure && t.ExitCode == 0) {
			return
		}
		if t.FinishedAt.Sub(t.StartedAt.Time) > backoffReset {
			backoff = -1
		}
		if backoff < 0 {
			backoff = 0
		} else {
			backoff = nextBackoff(backoff)
		}
		if !c.backOff(backoff) {
			return
		}
	}
}

func (c *container) waitStarted(ctx context.Context) bool {
	select {
	case <-c.startedOK:
		return true
	case <-ctx.Done():
		return false
	}
}

func (c *container) markStarted() {
	c.mu.Lock()
	c.started = true
	c.mu.Unlock()
	c.startOnce.Do(func() { close(c.startedOK) })
	c.rt.changed()
}

// kill stops the current process: SIGTERM to the container's PID 1, SIGKILL
// to all of its processes after the grace period.
func (c *container) kill(grace time.Duration, why string) {
	c.mu.Lock()
	proc, exited := c.proc, c.exited
	if proc != nil && why != "" {
		c.killing = why
	}
	c.mu.Unlock()
	if proc == nil || exited == nil {
		return
	}
	klog.InfoS("Killing container", "pod", c.rt.key, "container", c.spec.Name, "gracePeriod", grace, "reason", why)
	_ = proc.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(grace):
		_ = syscall.Kill(-proc.Pid, syscall.SIGKILL)
		<-exited
	}
}

// restartForProbe kills the container so that supervise restarts it.
func (c *container) restartForProbe(why string) {
	c.rt.event(corev1.EventTypeNormal, "Killing", "Container %s %s, will be restarted", c.spec.Name, why)
	grace := 30 * time.Second
	if g := c.rt.pod.Spec.TerminationGracePeriodSeconds; g != nil {
		grace = time.Duration(*g) * time.Second
	}
	c.kill(grace, why)
}
