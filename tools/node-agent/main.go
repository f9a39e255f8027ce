// Command node-agent is the local cluster's real node: a virtual-kubelet
// whose provider runs every pod bound to it as local processes, each pod in
// its own network namespace on a bridge the harness created, each container
// in its own mount and UTS namespace with a root assembled from the host's
// system directories, the image's mapped files and the pod's volumes.
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/virtual-kubelet/virtual-kubelet/node"
	"github.com/virtual-kubelet/virtual-kubelet/node/nodeutil"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == containerInitCommand {
		containerInit(os.Args[2:])
		return
	}
	if err := run(); err != nil {
		klog.ErrorS(err, "node agent failed")
		os.Exit(1)
	}
}

type options struct {
	kubeconfig    string
	nodeName      string
	listen        string
	clientCA      string
	workDir       string
	imageMap      string
	bridge        string
	podCIDR       string
	serviceCIDR   string
	gateway       string
	clusterDomain string
	dnsPort       int
	maxPods       int
	labels        string
	extended      string
}

func run() error {
	var o options
	flag.StringVar(&o.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster")
	flag.StringVar(&o.nodeName, "node-name", "local-node", "name of the Node to register")
	flag.StringVar(&o.listen, "listen", "127.0.0.1:10250", "address of the kubelet API (logs, port-forward)")
	flag.StringVar(&o.clientCA, "client-ca", "", "CA that signs the API server's kubelet client certificate")
	flag.StringVar(&o.workDir, "work-dir", "/var/lib/cv-node-agent", "pods' volumes, logs and roots")
	flag.StringVar(&o.imageMap, "image-map", "", "JSON file mapping image references to programs")
	flag.StringVar(&o.bridge, "bridge", "cvbr0", "bridge the pods' veth pairs join (created by the harness)")
	flag.StringVar(&o.podCIDR, "pod-cidr", "10.244.0.0/24", "pod addresses (the bridge holds the first)")
	flag.StringVar(&o.serviceCIDR, "service-cidr", "10.96.0.0/16", "Service ClusterIP range, routed to the bridge")
	flag.StringVar(&o.gateway, "gateway", "", "the bridge's address (default: first address of --pod-cidr)")
	flag.StringVar(&o.clusterDomain, "cluster-domain", "cluster.local", "DNS domain of Services")
	flag.IntVar(&o.dnsPort, "dns-port", 53, "port of the cluster DNS server on the gateway address")
	flag.IntVar(&o.maxPods, "max-pods", 110, "pod capacity")
	flag.StringVar(&o.labels, "labels", "", "extra node labels, k=v,k=v")
	flag.StringVar(&o.extended, "extended-resources", "", "extended resources to advertise, name=count,... (e.g. nvidia.com/gpu=1 for a node that stands in for a GPU node)")
	klog.InitFlags(nil)
	flag.Parse()

	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()

	cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = 50, 100
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	images, err := loadImageMap(o.imageMap)
	if err != nil {
		return err
	}
	network, err := newPodNetwork(o.bridge, o.podCIDR, o.serviceCIDR, o.gateway)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.workDir, 0o755); err != nil {
		return err
	}

	factory := informers.NewSharedInformerFactory(client, 10*time.Minute)
	dns := newClusterDNS(factory, o.clusterDomain)
	dnsAddr := net.JoinHostPort(network.gateway.String(), fmt.Sprint(o.dnsPort))
	if err := dns.serve(ctx, dnsAddr); err != nil {
		return fmt.Errorf("cluster DNS on %s: %w", dnsAddr, err)
	}

	mux := http.NewServeMux()
	var provider *processProvider
	n, err := nodeutil.NewNode(o.nodeName,
		func(pc nodeutil.ProviderConfig) (nodeutil.Provider, node.NodeProvider, error) {
			provider = newProcessProvider(providerConfig{
				nodeName:      o.nodeName,
				workDir:       o.workDir,
				images:        images,
				network:       network,
				clusterDomain: o.clusterDomain,
				dnsServer:     network.gateway.String(),
				secrets:       pc.Secrets,
				configMaps:    pc.ConfigMaps,
				services:      pc.Services,
				client:        client,
			})
			describeNode(pc.Node, o, network)
			return provider, nil, nil
		},
		nodeutil.WithClient(client),
		func(c *nodeutil.NodeConfig) error {
			c.HTTPListenAddr = o.listen
			c.NumWorkers = 8
			c.InformerResyncPeriod = 10 * time.Minute
			c.Handler = mux
			c.StreamIdleTimeout = 4 * time.Hour
			c.StreamCreationTimeout = 30 * time.Second
			// The provider resolves env itself: status.podIP is only known
			// once the pod's network exists.
			c.SkipDownwardAPIResolution = true
			return nil
		},
		nodeutil.WithTLSConfig(selfSignedServingCert(o.nodeName), clientCA(o.clientCA)),
		nodeutil.AttachProviderRoutes(mux),
	)
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	go func() {
		if err := n.Run(ctx); err != nil {
			klog.ErrorS(err, "node controller stopped")
			cancel()
		}
	}()
	if err := n.WaitReady(ctx, time.Minute); err != nil {
		return err
	}
	klog.InfoS("Node registered and ready", "node", o.nodeName, "kubeletAPI", o.listen, "dns", dnsAddr)
	<-ctx.Done()
	klog.InfoS("Stopping: terminating every pod", "node", o.nodeName)
	provider.stopAll()
	return nil
}

func clientCA(path string) func(*tls.Config) error {
	if path == "" {
		return func(*tls.Config) error { return nil }
	}
	return nodeutil.WithCAFromPath(path)
}

func describeNode(n *corev1.Node, o options, network *podNetwork) {
	var mem int64
	var info syscall.Sysinfo_t
	if syscall.Sysinfo(&info) == nil {
		mem = int64(info.Totalram) * int64(info.Unit)
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewQuantity(int64(runtime.NumCPU()), resource.DecimalSI),
		corev1.ResourceMemory:           *resource.NewQuantity(mem, resource.BinarySI),
		corev1.ResourcePods:             *resource.NewQuantity(int64(o.maxPods), resource.DecimalSI),
		corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
	}
	for _, kv := range splitNonEmpty(o.extended, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			if q, err := resource.ParseQuantity(v); err == nil {
				capacity[corev1.ResourceName(k)] = q
			}
		}
	}
	n.Status.Capacity = capacity
	n.Status.Allocatable = capacity.DeepCopy()
	n.Labels["kubernetes.io/os"] = "linux"
	n.Labels["kubernetes.io/arch"] = runtime.GOARCH
	n.Labels["type"] = "real"
	n.Labels["node.kubernetes.io/instance-type"] = "local"
	for _, kv := range splitNonEmpty(o.labels, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			n.Labels[k] = v
		}
	}
	host, port, _ := net.SplitHostPort(o.listen)
	var p int
	fmt.Sscan(port, &p)
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: host}}
	n.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(p)
	n.Spec.PodCIDR = network.podCIDR.String()
	n.Spec.PodCIDRs = []string{network.podCIDR.String()}
	hostname, _ := os.Hostname()
	n.Status.NodeInfo = corev1.NodeSystemInfo{
		OperatingSystem:         "linux",
		Architecture:            runtime.GOARCH,
		KubeletVersion:          "v1.36.3-cv-node-agent",
		ContainerRuntimeVersion: "cv-process://1",
		MachineID:               hostname,
	}
}
