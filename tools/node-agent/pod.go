package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// podRuntime is one pod on this node: its network namespace, volumes and
// containers, and the status a kubelet would report for them.
type podRuntime struct {
	p    *processProvider
	key  string
	uid  string
	dir  string
	pod  *corev1.Pod // guarded by mu
	ctx  context.Context
	stop context.CancelFunc
	done chan struct{}

	publishMu sync.Mutex

	mu          sync.Mutex
	ip          net.IP
	netns       string
	startTime   metav1.Time
	initialized bool
	failed      string // pod-level reason when the pod cannot run at all
	message     string
	inits       []*container
	ctrs        []*container
	volumes     map[string]string // volume name -> host directory
	tmpfs       []string          // Memory-medium emptyDirs mounted on the host
	terminating bool
	conditions  []corev1.PodCondition

	tokenMu sync.Mutex
	tokens  map[string]boundToken // projected service account tokens by audience and lifetime
}

func newPodRuntime(p *processProvider, pod *corev1.Pod) *podRuntime {
	ctx, cancel := context.WithCancel(context.Background())
	rt := &podRuntime{
		p: p, key: podKey(pod.Namespace, pod.Name), uid: string(pod.UID), pod: pod,
		dir: filepath.Join(p.cfg.workDir, "pods", string(pod.UID)),
		ctx: ctx, stop: cancel, done: make(chan struct{}),
		startTime: metav1.Now(),
		volumes:   map[string]string{},
	}
	for i := range pod.Spec.InitContainers {
		rt.inits = append(rt.inits, newContainer(rt, pod.Spec.InitContainers[i], true))
	}
	for i := range pod.Spec.Containers {
		rt.ctrs = append(rt.ctrs, newContainer(rt, pod.Spec.Containers[i], false))
	}
	return rt
}

func (rt *podRuntime) updateMeta(pod *corev1.Pod) {
	rt.mu.Lock()
	rt.pod.Labels = pod.Labels
	rt.pod.Annotations = pod.Annotations
	rt.pod.DeletionTimestamp = pod.DeletionTimestamp
	rt.pod.DeletionGracePeriodSeconds = pod.DeletionGracePeriodSeconds
	rt.mu.Unlock()
}

func (rt *podRuntime) podIP() string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.ip == nil {
		return ""
	}
	return rt.ip.String()
}

// changed publishes the pod's status. Snapshots are taken and published one
// at a time, so an older snapshot can never be delivered after a newer one
// (which would leave the API showing a state the pod has left).
func (rt *podRuntime) changed() {
	rt.publishMu.Lock()
	defer rt.publishMu.Unlock()
	rt.p.publish(rt.snapshot())
}

func (rt *podRuntime) event(kind, reason, format string, args ...any) {
	rt.mu.Lock()
	pod := rt.pod.DeepCopy()
	rt.mu.Unlock()
	rt.p.recorder.Eventf(pod, kind, reason, format, args...)
}

func (rt *podRuntime) hostname() string {
	if rt.pod.Spec.Hostname != "" {
		return rt.pod.Spec.Hostname
	}
	return rt.pod.Name
}

// run is the pod's life: network, volumes, init containers in order, then
// every container under its restart policy.
func (rt *podRuntime) run() {
	defer close(rt.done)
	if err := rt.setUp(); err != nil {
		klog.ErrorS(err, "Pod set-up failed", "pod", rt.key)
		rt.event(corev1.EventTypeWarning, "FailedCreatePodSandBox", "%v", err)
		rt.mu.Lock()
		rt.failed, rt.message = "FailedCreatePodSandBox", err.Error()
		rt.mu.Unlock()
		rt.changed()
		return
	}
	rt.changed()
	for _, c := range rt.inits {
		if c.spec.RestartPolicy != nil && *c.spec.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			go c.supervise()
			if !c.waitStarted(rt.ctx) {
				return
			}
			continue
		}
		if !c.runToCompletion() {
			return
		}
	}
	rt.mu.Lock()
	rt.initialized = true
	rt.mu.Unlock()
	rt.changed()
	var wg sync.WaitGroup
	for _, c := range rt.ctrs {
		wg.Add(1)
		go func(c *container) { defer wg.Done(); c.supervise() }(c)
	}
	wg.Wait()
	rt.changed()
}

func (rt *podRuntime) restartPolicy() corev1.RestartPolicy {
	if rt.pod.Spec.RestartPolicy == "" {
		return corev1.RestartPolicyAlways
	}
	return rt.pod.Spec.RestartPolicy
}

func (rt *podRuntime) setUp() error {
	if err := os.MkdirAll(filepath.Join(rt.dir, "etc"), 0o755); err != nil {
		return err
	}
	ip, err := rt.p.cfg.network.allocate(rt.key)
	if err != nil {
		return err
	}
	rt.mu.Lock()
	rt.ip = ip
	rt.mu.Unlock()
	ns, err := rt.p.cfg.network.setUp(rt.uid, ip)
	if err != nil {
		rt.p.cfg.network.release(ip)
		rt.mu.Lock()
		rt.ip = nil
		rt.mu.Unlock()
		return err
	}
	rt.mu.Lock()
	rt.netns = ns
	rt.mu.Unlock()
	if err := rt.writeNetworkFiles(); err != nil {
		return err
	}
	for {
		err := rt.prepareVolumes()
		if err == nil {
			return nil
		}
		if _, permanent := err.(permanentError); permanent {
			return err
		}
		rt.event(corev1.EventTypeWarning, "FailedMount", "%v", err)
		select {
		case <-rt.ctx.Done():
			return err
		case <-time.After(3 * time.Second):
		}
	}
}

// writeNetworkFiles writes the resolv.conf, hosts and hostname a kubelet
// would give the pod: cluster DNS with the pod's search path.
func (rt *podRuntime) writeNetworkFiles() error {
	ns, dom := rt.pod.Namespace, rt.p.cfg.clusterDomain
	resolv := fmt.Sprintf("search %s.svc.%s svc.%s %s\nnameserver %s\noptions ndots:5\n", ns, dom, dom, dom, rt.p.cfg.dnsServer)
	if rt.pod.Spec.DNSPolicy == corev1.DNSNone && rt.pod.Spec.DNSConfig != nil {
		resolv = "nameserver " + strings.Join(rt.pod.Spec.DNSConfig.Nameservers, "\nnameserver ") + "\n"
	}
	host := rt.hostname()
	fqdn := host
	if sub := rt.pod.Spec.Subdomain; sub != "" {
		fqdn = fmt.Sprintf("%s.%s.%s.svc.%s", host, sub, ns, dom)
	}
	hosts := fmt.Sprintf("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n%s\t%s %s\n", rt.podIP(), fqdn, host)
	for _, a := range rt.pod.Spec.HostAliases {
		hosts += fmt.Sprintf("%s\t%s\n", a.IP, strings.Join(a.Hostnames, " "))
	}
	files := map[string]string{"resolv.conf": resolv, "hosts": hosts, "hostname": host + "\n"}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(rt.dir, "etc", name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// terminate stops every container (SIGTERM, then SIGKILL after grace) and
// removes what the pod had on this node. Safe to call more than once.
func (rt *podRuntime) terminate(grace time.Duration) {
	rt.mu.Lock()
	already := rt.terminating
	rt.terminating = true
	rt.mu.Unlock()
	if !already {
		rt.stop()
		all := append(append([]*container(nil), rt.inits...), rt.ctrs...)
		var wg sync.WaitGroup
		for _, c := range all {
			wg.Add(1)
			go func(c *container) { defer wg.Done(); c.kill(grace, "") }(c)
		}
		wg.Wait()
		select {
		case <-rt.done:
		case <-time.After(grace + 5*time.Second):
		}
		rt.tearDown()
	}
	<-rt.done
}

func (rt *podRuntime) tearDown() {
	rt.mu.Lock()
	ip, mounts := rt.ip, rt.tmpfs
	rt.tmpfs = nil
	rt.mu.Unlock()
	for _, m := range mounts {
		if err := syscall.Unmount(m, syscall.MNT_DETACH); err != nil {
			klog.ErrorS(err, "Unmount failed", "pod", rt.key, "path", m)
		}
	}
	rt.p.cfg.network.tearDown(rt.uid)
	rt.p.cfg.network.release(ip)
	if err := os.RemoveAll(rt.dir); err != nil {
		klog.ErrorS(err, "Removing pod directory failed", "pod", rt.key)
	}
	klog.InfoS("Pod terminated and cleaned up", "pod", rt.key)
}
