package main

import (
	"os"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// resourceMetrics is what a kubelet serves at /metrics/resource, the
// endpoint metrics-server scrapes for the resource metrics API (kubectl top,
// HorizontalPodAutoscalers on cpu and memory): node and per-container CPU
// time and working set, each sample with its timestamp, and each
// container's start time.
func resourceMetrics(rts []*podRuntime, usage map[int]processUsage, now time.Time) []*dto.MetricFamily {
	ts := now.UnixMilli()
	gauge := dto.MetricType_GAUGE.Enum()
	counter := dto.MetricType_COUNTER.Enum()
	family := func(name, help string, t *dto.MetricType) *dto.MetricFamily {
		return &dto.MetricFamily{Name: &name, Help: &help, Type: t}
	}
	sample := func(f *dto.MetricFamily, v float64, labels ...string) {
		m := &dto.Metric{TimestampMs: &ts}
		for i := 0; i+1 < len(labels); i += 2 {
			m.Label = append(m.Label, &dto.LabelPair{Name: &labels[i], Value: &labels[i+1]})
		}
		if f.GetType() == dto.MetricType_COUNTER {
			m.Counter = &dto.Counter{Value: &v}
		} else {
			m.Gauge = &dto.Gauge{Value: &v}
		}
		f.Metric = append(f.Metric, m)
	}
	nodeCPU := family("node_cpu_usage_seconds_total", "Cumulative cpu time consumed by the node in core-seconds", counter)
	nodeMem := family("node_memory_working_set_bytes", "Current working set of the node in bytes", gauge)
	ctrCPU := family("container_cpu_usage_seconds_total", "Cumulative cpu time consumed by the container in core-seconds", counter)
	ctrMem := family("container_memory_working_set_bytes", "Current working set of the container in bytes", gauge)
	ctrStart := family("container_start_time_seconds", "Start time of the container since unix epoch in seconds", gauge)
	podCPU := family("pod_cpu_usage_seconds_total", "Cumulative cpu time consumed by the pod in core-seconds", counter)
	podMem := family("pod_memory_working_set_bytes", "Current working set of the pod in bytes", gauge)
	scrapeError := family("scrape_error", "1 if there was an error while getting container metrics, 0 otherwise", gauge)

	cpu, mem := hostUsage()
	sample(nodeCPU, cpu)
	sample(nodeMem, mem)
	for _, rt := range rts {
		var pCPU, pMem float64
		running := false
		for _, c := range rt.ctrs {
			c.mu.Lock()
			proc, state := c.proc, c.state
			c.mu.Unlock()
			if proc == nil || state.Running == nil {
				continue
			}
			running = true
			u := usage[proc.Pid]
			labels := []string{"container", c.spec.Name, "namespace", rt.pod.Namespace, "pod", rt.pod.Name}
			sample(ctrCPU, float64(u.cpuNanos)/1e9, labels...)
			sample(ctrMem, float64(u.rssBytes), labels...)
			sample(ctrStart, float64(state.Running.StartedAt.UnixNano())/1e9, labels...)
			pCPU += float64(u.cpuNanos) / 1e9
			pMem += float64(u.rssBytes)
		}
		if running {
			sample(podCPU, pCPU, "namespace", rt.pod.Namespace, "pod", rt.pod.Name)
			sample(podMem, pMem, "namespace", rt.pod.Namespace, "pod", rt.pod.Name)
		}
	}
	sample(scrapeError, 0)
	// The text encoder refuses a family without samples (no pod running).
	var out []*dto.MetricFamily
	for _, f := range []*dto.MetricFamily{nodeCPU, nodeMem, ctrCPU, ctrMem, ctrStart, podCPU, podMem, scrapeError} {
		if len(f.Metric) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// hostUsage is the machine's CPU time in core-seconds (/proc/stat, all but
// idle and iowait) and memory in use (MemTotal - MemAvailable): the node is
// the host.
func hostUsage() (cpuSeconds, memBytes float64) {
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) < 8 || f[0] != "cpu" {
				continue
			}
			var busy uint64
			for i, v := range f[1:] {
				if i == 3 || i == 4 { // idle, iowait
					continue
				}
				n, _ := strconv.ParseUint(v, 10, 64)
				busy += n
			}
			cpuSeconds = float64(busy) / float64(clockTicks)
			break
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		kb := map[string]float64{}
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				n, _ := strconv.ParseFloat(f[1], 64)
				kb[strings.TrimSuffix(f[0], ":")] = n
			}
		}
		memBytes = (kb["MemTotal"] - kb["MemAvailable"]) * 1024
	}
	return cpuSeconds, memBytes
}
