package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/virtual-kubelet/virtual-kubelet/errdefs"
	"github.com/virtual-kubelet/virtual-kubelet/node/api"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	statsv1alpha1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
)

type providerConfig struct {
	nodeName      string
	workDir       string
	images        *imageMap
	network       *podNetwork
	clusterDomain string
	dnsServer     string
	secrets       corev1listers.SecretLister
	configMaps    corev1listers.ConfigMapLister
	services      corev1listers.ServiceLister
	client        kubernetes.Interface
}

// processProvider implements virtual-kubelet's provider: each pod is a
// podRuntime that runs its containers as processes and reports status
// changes asynchronously through NotifyPods.
type processProvider struct {
	cfg      providerConfig
	self     string
	recorder record.EventRecorder

	mu     sync.Mutex
	pods   map[string]*podRuntime
	notify func(*corev1.Pod)
}

func newProcessProvider(cfg providerConfig) *processProvider {
	self, err := os.Executable()
	if err != nil {
		klog.Fatalf("own executable: %v", err)
	}
	eb := record.NewBroadcaster()
	eb.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: cfg.client.CoreV1().Events("")})
	p := &processProvider{
		cfg:      cfg,
		self:     self,
		recorder: eb.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "kubelet", Host: cfg.nodeName}),
		pods:     map[string]*podRuntime{},
		notify:   func(*corev1.Pod) {},
	}
	go p.sweepVolumes()
	return p
}

func podKey(ns, name string) string { return ns + "/" + name }

func (p *processProvider) NotifyPods(_ context.Context, f func(*corev1.Pod)) {
	p.mu.Lock()
	p.notify = f
	p.mu.Unlock()
}

func (p *processProvider) publish(pod *corev1.Pod) {
	p.mu.Lock()
	f := p.notify
	p.mu.Unlock()
	f(pod)
}

func (p *processProvider) get(ns, name string) *podRuntime {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pods[podKey(ns, name)]
}

func (p *processProvider) CreatePod(_ context.Context, pod *corev1.Pod) error {
	key := podKey(pod.Namespace, pod.Name)
	p.mu.Lock()
	if old, ok := p.pods[key]; ok && old.uid == string(pod.UID) {
		p.mu.Unlock()
		return nil
	}
	rt := newPodRuntime(p, pod.DeepCopy())
	p.pods[key] = rt
	p.mu.Unlock()
	go rt.run()
	return nil
}

func (p *processProvider) UpdatePod(_ context.Context, pod *corev1.Pod) error {
	if rt := p.get(pod.Namespace, pod.Name); rt != nil && rt.uid == string(pod.UID) {
		rt.updateMeta(pod)
	}
	return nil
}

// DeletePod stops the pod's containers (SIGTERM, SIGKILL after the grace
// period), removes its network and volumes, then reports it terminated.
func (p *processProvider) DeletePod(_ context.Context, pod *corev1.Pod) error {
	rt := p.get(pod.Namespace, pod.Name)
	if rt == nil || rt.uid != string(pod.UID) {
		return errdefs.NotFoundf("pod %s/%s is not on this node", pod.Namespace, pod.Name)
	}
	grace := int64(30)
	if pod.Spec.TerminationGracePeriodSeconds != nil {
		grace = *pod.Spec.TerminationGracePeriodSeconds
	}
	if pod.DeletionGracePeriodSeconds != nil {
		grace = *pod.DeletionGracePeriodSeconds
	}
	rt.terminate(time.Duration(grace) * time.Second)
	p.mu.Lock()
	if p.pods[rt.key] == rt {
		delete(p.pods, rt.key)
	}
	p.mu.Unlock()
	rt.publishMu.Lock()
	final := rt.snapshot()
	now := metav1.Now()
	final.DeletionTimestamp = &now
	p.publish(final)
	rt.publishMu.Unlock()
	return nil
}

func (p *processProvider) GetPod(_ context.Context, ns, name string) (*corev1.Pod, error) {
	rt := p.get(ns, name)
	if rt == nil {
		return nil, errdefs.NotFoundf("pod %s/%s is not on this node", ns, name)
	}
	return rt.snapshot(), nil
}

func (p *processProvider) GetPodStatus(ctx context.Context, ns, name string) (*corev1.PodStatus, error) {
	pod, err := p.GetPod(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	return &pod.Status, nil
}

// runtimes is the pods on this node now, taken under the lock.
func (p *processProvider) runtimes() []*podRuntime {
	p.mu.Lock()
	defer p.mu.Unlock()
	rts := make([]*podRuntime, 0, len(p.pods))
	for _, rt := range p.pods {
		rts = append(rts, rt)
	}
	return rts
}

func (p *processProvider) GetPods(context.Context) ([]*corev1.Pod, error) {
	rts := p.runtimes()
	out := make([]*corev1.Pod, 0, len(rts))
	for _, rt := range rts {
		out = append(out, rt.snapshot())
	}
	return out, nil
}

func (p *processProvider) GetContainerLogs(ctx context.Context, ns, name, container string, opts api.ContainerLogOpts) (io.ReadCloser, error) {
	rt := p.get(ns, name)
	if rt == nil {
		return nil, errdefs.NotFoundf("pod %s/%s is not on this node", ns, name)
	}
	return rt.logs(ctx, container, opts)
}

func (p *processProvider) RunInContainer(ctx context.Context, ns, name, container string, cmd []string, attach api.AttachIO) error {
	rt := p.get(ns, name)
	if rt == nil {
		return errdefs.NotFoundf("pod %s/%s is not on this node", ns, name)
	}
	return rt.exec(ctx, container, cmd, attach)
}

func (p *processProvider) AttachToContainer(context.Context, string, string, string, api.AttachIO) error {
	return fmt.Errorf("attach is not supported by the process node")
}

func (p *processProvider) GetStatsSummary(context.Context) (*statsv1alpha1.Summary, error) {
	now := metav1.Now()
	s := &statsv1alpha1.Summary{Node: statsv1alpha1.NodeStats{NodeName: p.cfg.nodeName, StartTime: now}}
	usage := usageByProcessGroup()
	for _, rt := range p.runtimes() {
		s.Pods = append(s.Pods, rt.stats(now, usage))
	}
	return s, nil
}

func (p *processProvider) GetMetricsResource(context.Context) ([]*dto.MetricFamily, error) {
	return resourceMetrics(p.runtimes(), usageByProcessGroup(), time.Now()), nil
}

// PortForward connects the stream to the pod's address, as a kubelet does
// from the host's network namespace.
func (p *processProvider) PortForward(ctx context.Context, ns, name string, port int32, stream io.ReadWriteCloser) error {
	rt := p.get(ns, name)
	if rt == nil {
		return errdefs.NotFoundf("pod %s/%s is not on this node", ns, name)
	}
	ip := rt.podIP()
	if ip == "" {
		return fmt.Errorf("pod %s/%s has no address yet", ns, name)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(ip, fmt.Sprint(port)))
	if err != nil {
		return err
	}
	defer conn.Close()
	defer stream.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(conn, stream); closeWrite(conn); done <- struct{}{} }()
	go func() { _, _ = io.Copy(stream, conn); done <- struct{}{} }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	return nil
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
}

// stopAll terminates every pod (agent shutdown), at most 10 s each.
func (p *processProvider) stopAll() {
	var wg sync.WaitGroup
	for _, rt := range p.runtimes() {
		wg.Add(1)
		go func(rt *podRuntime) {
			defer wg.Done()
			grace := 10 * time.Second
			if g := rt.pod.Spec.TerminationGracePeriodSeconds; g != nil && time.Duration(*g)*time.Second < grace {
				grace = time.Duration(*g) * time.Second
			}
			rt.terminate(grace)
		}(rt)
	}
	wg.Wait()
}

// sweepVolumes removes the directory of every PersistentVolume that no longer
// exists: a PV's data lives as long as the PV, across pod restarts.
func (p *processProvider) sweepVolumes() {
	dir := filepath.Join(p.cfg.workDir, "pv")
	for range time.Tick(15 * time.Second) {
		entries, err := os.ReadDir(dir)
		if err != nil || len(entries) == 0 {
			continue
		}
		list, err := p.cfg.client.CoreV1().PersistentVolumes().List(context.Background(), metav1.ListOptions{})
		if err != nil {
			continue
		}
		live := map[string]bool{}
		for _, pv := range list.Items {
			live[pv.Name] = true
		}
		var gone []string
		for _, e := range entries {
			if !live[e.Name()] {
				gone = append(gone, e.Name())
			}
		}
		sort.Strings(gone)
		for _, name := range gone {
			klog.InfoS("Removed volume directory of deleted PersistentVolume", "persistentVolume", name)
			_ = os.RemoveAll(filepath.Join(dir, name))
		}
	}
}
