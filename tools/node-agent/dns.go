package main

import (
	"context"
	"net"
	"strings"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	corev1listers "k8s.io/client-go/listers/core/v1"
	discoverylisters "k8s.io/client-go/listers/discovery/v1"
	"k8s.io/klog/v2"
)

// clusterDNS answers the names CoreDNS's kubernetes plugin answers for pods:
// <svc>.<ns>.svc.<domain> (the ClusterIP, or ready endpoints of a headless
// Service) and <hostname>.<svc>.<ns>.svc.<domain> for endpoints that carry a
// hostname (StatefulSet pods). It forwards nothing: other names do not exist,
// so no pod query leaves the machine.
type clusterDNS struct {
	domain   string
	services corev1listers.ServiceLister
	slices   discoverylisters.EndpointSliceLister
}

func newClusterDNS(f informers.SharedInformerFactory, domain string) *clusterDNS {
	return &clusterDNS{
		domain:   strings.Trim(domain, ".") + ".",
		services: f.Core().V1().Services().Lister(),
		slices:   f.Discovery().V1().EndpointSlices().Lister(),
	}
}

func (d *clusterDNS) serve(ctx context.Context, addr string) error {
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		pc.Close()
		return err
	}
	udp := &dns.Server{PacketConn: pc, Handler: d}
	tcp := &dns.Server{Listener: l, Handler: d}
	go func() { _ = udp.ActivateAndServe() }()
	go func() { _ = tcp.ActivateAndServe() }()
	go func() {
		<-ctx.Done()
		_ = udp.Shutdown()
		_ = tcp.Shutdown()
	}()
	return nil
}

func (d *clusterDNS) ServeDNS(w dns.ResponseWriter, r *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(r)
	m.Authoritative = true
	if len(r.Question) != 1 {
		m.Rcode = dns.RcodeFormatError
		_ = w.WriteMsg(m)
		return
	}
	q := r.Question[0]
	ips, known := d.resolve(strings.ToLower(q.Name))
	if !known {
		m.Rcode = dns.RcodeNameError
	}
	if q.Qtype == dns.TypeA || q.Qtype == dns.TypeANY {
		for _, ip := range ips {
			m.Answer = append(m.Answer, &dns.A{
				Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 5},
				A:   ip,
			})
		}
	}
	if err := w.WriteMsg(m); err != nil {
		klog.V(2).InfoS("DNS reply failed", "err", err)
	}
}

// resolve returns the addresses of a cluster name and whether the name exists.
func (d *clusterDNS) resolve(name string) ([]net.IP, bool) {
	if !strings.HasSuffix(name, ".svc."+d.domain) {
		return nil, false
	}
	parts := strings.Split(strings.TrimSuffix(name, ".svc."+d.domain), ".")
	var host, svcName, ns string
	switch len(parts) {
	case 2:
		svcName, ns = parts[0], parts[1]
	case 3:
		host, svcName, ns = parts[0], parts[1], parts[2]
	default:
		return nil, false
	}
	svc, err := d.services.Services(ns).Get(svcName)
	if err != nil {
		return nil, false
	}
	if host == "" && svc.Spec.ClusterIP != "" && svc.Spec.ClusterIP != corev1.ClusterIPNone {
		return []net.IP{net.ParseIP(svc.Spec.ClusterIP).To4()}, true
	}
	sel := labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: svcName})
	slices, _ := d.slices.EndpointSlices(ns).List(sel)
	var ips []net.IP
	seen := map[string]bool{}
	for _, s := range slices {
		for _, ep := range s.Endpoints {
			ready := ep.Conditions.Ready == nil || *ep.Conditions.Ready
			if !ready && !svc.Spec.PublishNotReadyAddresses {
				continue
			}
			if host != "" && (ep.Hostname == nil || *ep.Hostname != host) {
				continue
			}
			for _, a := range ep.Addresses {
				if !seen[a] {
					seen[a] = true
					ips = append(ips, net.ParseIP(a).To4())
				}
			}
		}
	}
	if host != "" && len(ips) == 0 {
		return nil, false
	}
	return ips, true
}
