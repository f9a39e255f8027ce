package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// startProbes runs the container's startup, liveness and readiness probes
// for as long as this process lives. Without a readiness probe a started
// container is ready; without a startup probe it is started at once.
func (c *container) startProbes(exited <-chan struct{}) {
	s := c.spec
	if s.StartupProbe == nil {
		c.markStarted()
		if s.ReadinessProbe == nil {
			c.setReady(true)
		}
	}
	startup := make(chan struct{})
	if s.StartupProbe != nil {
		go c.probeLoop("Startup", s.StartupProbe, exited, nil, func(ok bool) bool {
			if ok {
				c.markStarted()
				if s.ReadinessProbe == nil {
					c.setReady(true)
				}
				close(startup)
				return false
			}
			return true
		})
	} else {
		close(startup)
	}
	if s.LivenessProbe != nil {
		go c.probeLoop("Liveness", s.LivenessProbe, exited, startup, nil)
	}
	if s.ReadinessProbe != nil {
		go c.probeLoop("Readiness", s.ReadinessProbe, exited, startup, nil)
	}
}

func (c *container) setReady(ready bool) {
	c.mu.Lock()
	changed := c.ready != ready
	if c.proc == nil {
		ready, changed = false, c.ready
	}
	c.ready = ready
	c.mu.Unlock()
	if changed {
		c.rt.changed()
	}
}

// probeLoop probes every period; thresholds decide transitions. onResult,
// when set, sees each result and stops the loop by returning false.
func (c *container) probeLoop(kind string, p *corev1.Probe, exited <-chan struct{}, after <-chan struct{}, onResult func(bool) bool) {
	if after != nil {
		select {
		case <-after:
		case <-exited:
			return
		}
	}
	period := secs(p.PeriodSeconds, 10)
	timeout := secs(p.TimeoutSeconds, 1)
	success, failure := int(p.SuccessThreshold), int(p.FailureThreshold)
	if success <= 0 {
		success = 1
	}
	if failure <= 0 {
		failure = 3
	}
	select {
	case <-time.After(secs(p.InitialDelaySeconds, 0)):
	case <-exited:
		return
	}
	okRun, failRun := 0, 0
	for {
		err := c.probeOnce(p, timeout)
		if err == nil {
			okRun, failRun = okRun+1, 0
		} else {
			okRun, failRun = 0, failRun+1
			c.rt.event(corev1.EventTypeWarning, "Unhealthy", "%s probe failed: %v", kind, err)
		}
		switch kind {
		case "Readiness":
			if okRun >= success {
				c.setReady(true)
			} else if failRun >= failure {
				c.setReady(false)
			}
		case "Liveness":
			if failRun >= failure {
				go c.restartForProbe(fmt.Sprintf("failed liveness probe: %v", err))
				return
			}
		case "Startup":
			if okRun >= 1 {
				onResult(true)
				return
			}
			if failRun >= failure {
				go c.restartForProbe(fmt.Sprintf("failed startup probe: %v", err))
				return
			}
		}
		select {
		case <-time.After(period):
		case <-exited:
			return
		}
	}
}

func secs(v int32, def int32) time.Duration {
	if v <= 0 {
		v = def
	}
	return time.Duration(v) * time.Second
}

func (c *container) resolvePort(port intstr.IntOrString) (int, error) {
	if port.Type == intstr.Int {
		return port.IntValue(), nil
	}
	for _, p := range c.spec.Ports {
		if p.Name == port.StrVal {
			return int(p.ContainerPort), nil
		}
	}
	if n, err := strconv.Atoi(port.StrVal); err == nil {
		return n, nil
	}
	return 0, fmt.Errorf("port %q is not a named port of container %s", port.StrVal, c.spec.Name)
}

// probeOnce runs one probe from the host, as the kubelet does: HTTP and TCP
// against the pod's address, exec inside the container.
func (c *container) probeOnce(p *corev1.Probe, timeout time.Duration) error {
	ip := c.rt.podIP()
	switch {
	case p.HTTPGet != nil:
		port, err := c.resolvePort(p.HTTPGet.Port)
		if err != nil {
			return err
		}
		host := ip
		if p.HTTPGet.Host != "" {
			host = p.HTTPGet.Host
		}
		scheme := strings.ToLower(string(p.HTTPGet.Scheme))
		if scheme == "" {
			scheme = "http"
		}
		url := fmt.Sprintf("%s://%s%s", scheme, net.JoinHostPort(host, strconv.Itoa(port)), p.HTTPGet.Path)
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		req.Header.Set("User-Agent", "kube-probe/1.36")
		for _, h := range p.HTTPGet.HTTPHeaders {
			req.Header.Set(h.Name, h.Value)
		}
		client := &http.Client{
			Timeout:       timeout,
			Transport:     &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
		res, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("Get %q: %v", url, err)
		}
		res.Body.Close()
		if res.StatusCode < 200 || res.StatusCode >= 400 {
			return fmt.Errorf("HTTP probe failed with statuscode: %d", res.StatusCode)
		}
		return nil
	case p.TCPSocket != nil:
		port, err := c.resolvePort(p.TCPSocket.Port)
		if err != nil {
			return err
		}
		conn, err := net.DialTimeout("tcp", net.JoinHostPort(ip, strconv.Itoa(port)), timeout)
		if err != nil {
			return fmt.Errorf("dial tcp %s:%d: %v", ip, port, err)
		}
		return conn.Close()
	case p.Exec != nil:
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		out, code, err := c.runIn(ctx, p.Exec.Command)
		if err != nil {
			return err
		}
		if code != 0 {
			return fmt.Errorf("command %q exited with %d: %s", strings.Join(p.Exec.Command, " "), code, strings.TrimSpace(string(out)))
		}
		return nil
	case p.GRPC != nil:
		return fmt.Errorf("gRPC probes are not supported by the process node")
	}
	return fmt.Errorf("probe has no handler")
}

// runIn runs a command in the container's namespaces and root, with its
// environment and user, and returns its combined output and exit code.
func (c *container) runIn(ctx context.Context, argv []string) ([]byte, int, error) {
	cmd, err := c.commandIn(argv)
	if err != nil {
		return nil, -1, err
	}
	out, err := runWithContext(ctx, cmd)
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return out, ee.ExitCode(), nil
		}
		return out, -1, err
	}
	return out, 0, nil
}

func runWithContext(ctx context.Context, cmd *exec.Cmd) ([]byte, error) {
	var buf strings.Builder
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return []byte(buf.String()), err
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return []byte(buf.String()), fmt.Errorf("command timed out")
	}
}

// commandIn runs argv inside the running container, as `kubectl exec` and
// exec probes do: its namespaces, its root and working directory, its user
// and environment.
func (c *container) commandIn(argv []string) (*exec.Cmd, error) {
	c.mu.Lock()
	proc := c.proc
	c.mu.Unlock()
	if proc == nil {
		return nil, fmt.Errorf("container %s is not running", c.spec.Name)
	}
	img, ok := c.rt.p.cfg.images.lookup(c.spec.Image)
	if !ok {
		return nil, fmt.Errorf("container %s is not running", c.spec.Name)
	}
	env, err := c.environment(img)
	if err != nil {
		return nil, err
	}
	uid, gid, _, err := c.identity(img)
	if err != nil {
		return nil, err
	}
	pid := strconv.Itoa(proc.Pid)
	args := append([]string{"-t", pid, "-m", "-u", "-n", "-r", "-w", "-S", strconv.FormatInt(uid, 10), "-G", strconv.FormatInt(gid, 10), "--"}, argv...)
	cmd := exec.Command("nsenter", args...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd, nil
}
