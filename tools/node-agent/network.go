package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"sync"
)

// podNetwork hands out pod addresses on the harness's bridge and gives each
// pod a network namespace joined to it by a veth pair. Pods get routes only
// for the pod and Service ranges, never a default route, so nothing a pod
// sends can be routed off the machine.
type podNetwork struct {
	bridge      string
	podCIDR     *net.IPNet
	serviceCIDR *net.IPNet
	gateway     net.IP
	prefixLen   int

	mu    sync.Mutex
	inUse map[uint32]string // address -> pod key
}

func newPodNetwork(bridge, podCIDR, serviceCIDR, gateway string) (*podNetwork, error) {
	_, pc, err := net.ParseCIDR(podCIDR)
	if err != nil {
		return nil, fmt.Errorf("--pod-cidr: %w", err)
	}
	_, sc, err := net.ParseCIDR(serviceCIDR)
	if err != nil {
		return nil, fmt.Errorf("--service-cidr: %w", err)
	}
	gw := net.ParseIP(gateway).To4()
	if gw == nil {
		gw = nthAddress(pc, 1)
	}
	ones, _ := pc.Mask.Size()
	if _, err := exec.LookPath("ip"); err != nil {
		return nil, fmt.Errorf("the node needs iproute2's ip command: %w", err)
	}
	if out, err := exec.Command("ip", "link", "show", bridge).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("bridge %s missing (the harness creates it): %s", bridge, strings.TrimSpace(string(out)))
	}
	n := &podNetwork{bridge: bridge, podCIDR: pc, serviceCIDR: sc, gateway: gw, prefixLen: ones, inUse: map[uint32]string{}}
	n.inUse[binary.BigEndian.Uint32(gw)] = "gateway"
	return n, nil
}

func nthAddress(n *net.IPNet, i uint32) net.IP {
	base := binary.BigEndian.Uint32(n.IP.To4())
	ip := make(net.IP, 4)
	binary.BigEndian.PutUint32(ip, base+i)
	return ip
}

// netnsName is short (veth names are limited to 15 characters) and stable per pod UID.
func netnsName(uid string) string {
	h := sha256.Sum256([]byte(uid))
	return "cvp-" + hex.EncodeToString(h[:5])
}

func (n *podNetwork) allocate(key string) (net.IP, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	ones, bits := n.podCIDR.Mask.Size()
	size := uint32(1) << (bits - ones)
	for i := uint32(2); i < size-1; i++ {
		ip := nthAddress(n.podCIDR, i)
		k := binary.BigEndian.Uint32(ip)
		if _, used := n.inUse[k]; !used {
			n.inUse[k] = key
			return ip, nil
		}
	}
	return nil, fmt.Errorf("pod range %s exhausted", n.podCIDR)
}

func (n *podNetwork) release(ip net.IP) {
	if ip == nil {
		return
	}
	n.mu.Lock()
	delete(n.inUse, binary.BigEndian.Uint32(ip.To4()))
	n.mu.Unlock()
}

func ipCmd(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// setUp creates the pod's namespace, its veth pair on the bridge and its routes.
func (n *podNetwork) setUp(uid string, ip net.IP) (string, error) {
	ns := netnsName(uid)
	host := "cvh" + ns[4:]
	_ = ipCmd("netns", "del", ns) // left over from a crashed agent
	steps := [][]string{
		{"netns", "add", ns},
		{"link", "add", host, "type", "veth", "peer", "name", "eth0", "netns", ns},
		{"link", "set", host, "master", n.bridge, "up"},
		{"-n", ns, "link", "set", "lo", "up"},
		{"-n", ns, "addr", "add", fmt.Sprintf("%s/%d", ip, n.prefixLen), "dev", "eth0"},
		{"-n", ns, "link", "set", "eth0", "up"},
		{"-n", ns, "route", "add", n.serviceCIDR.String(), "via", n.gateway.String(), "dev", "eth0"},
	}
	for _, s := range steps {
		if err := ipCmd(s...); err != nil {
			n.tearDown(uid)
			return "", err
		}
	}
	return ns, nil
}

// tearDown deletes the namespace; the kernel removes the veth pair with it.
func (n *podNetwork) tearDown(uid string) {
	ns := netnsName(uid)
	_ = ipCmd("netns", "del", ns)
	_ = ipCmd("link", "del", "cvh"+ns[4:])
}
