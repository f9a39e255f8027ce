package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
)

// The host directories every container sees read-only, as an image's base
// layers would provide them; /dev, /proc and /sys as a runtime mounts them.
var systemDirs = []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/usr", "/etc", "/opt"}

const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

func (c *container) initSpec(img *imageConfig) (*initSpec, error) {
	rt := c.rt
	env, err := c.environment(img)
	if err != nil {
		return nil, err
	}
	uid, gid, groups, err := c.identity(img)
	if err != nil {
		return nil, err
	}
	argv := append([]string(nil), img.Entrypoint...)
	args := img.Cmd
	if len(c.spec.Command) > 0 {
		argv, args = expandAll(c.spec.Command, env), nil
	}
	if len(c.spec.Args) > 0 {
		args = expandAll(c.spec.Args, env)
	}
	argv = append(argv, args...)
	if len(argv) == 0 {
		return nil, &startError{"CreateContainerConfigError", "no command specified"}
	}
	var mounts []mountSpec
	for _, d := range systemDirs {
		if exists(d) {
			mounts = append(mounts, mountSpec{Source: d, Target: d, ReadOnly: true, Expandable: true})
		}
	}
	mounts = append(mounts,
		mountSpec{Target: "/dev", Dev: true},
		mountSpec{Source: "/proc", Target: "/proc", Recursive: true},
		mountSpec{Source: "/sys", Target: "/sys", ReadOnly: true, Recursive: true},
	)
	targets := make([]string, 0, len(img.Files))
	for t := range img.Files {
		targets = append(targets, t)
	}
	sort.Strings(targets)
	for _, t := range targets {
		mounts = append(mounts, mountSpec{Source: img.Files[t], Target: t, ReadOnly: true, Expandable: true})
	}
	termPath := c.spec.TerminationMessagePath
	if termPath == "" {
		termPath = corev1.TerminationMessagePathDefault
	}
	mounts = append(mounts, mountSpec{Source: c.terminationLog(), Target: filepath.Clean(termPath)})
	for _, f := range []string{"resolv.conf", "hosts", "hostname"} {
		mounts = append(mounts, mountSpec{Source: filepath.Join(rt.dir, "etc", f), Target: "/etc/" + f, ReadOnly: true})
	}
	rt.mu.Lock()
	vols := rt.volumes
	rt.mu.Unlock()
	for _, vm := range c.spec.VolumeMounts {
		src, ok := vols[vm.Name]
		if !ok {
			return nil, &startError{"CreateContainerConfigError", fmt.Sprintf("volume %q not found for mount %s", vm.Name, vm.MountPath)}
		}
		if vm.SubPath != "" {
			src = filepath.Join(src, filepath.Clean("/"+vm.SubPath))
		}
		mounts = append(mounts, mountSpec{Source: src, Target: filepath.Clean(vm.MountPath), ReadOnly: vm.ReadOnly})
	}
	readOnlyRoot := c.spec.SecurityContext != nil && c.spec.SecurityContext.ReadOnlyRootFilesystem != nil && *c.spec.SecurityContext.ReadOnlyRootFilesystem
	wd := c.spec.WorkingDir
	if wd == "" {
		wd = img.WorkingDir
	}
	return &initSpec{
		Hostname: rt.hostname(), Mounts: mounts, ReadOnlyRoot: readOnlyRoot,
		WorkingDir: wd, Argv: argv, Env: env, UID: int(uid), GID: int(gid), Groups: groups,
	}, nil
}

// identity applies the pod's and container's securityContext over the
// image's user, and refuses root under runAsNonRoot as the kubelet does.
func (c *container) identity(img *imageConfig) (int64, int64, []int, error) {
	var uid, gid int64
	if img.User != nil {
		uid = *img.User
	}
	if img.Group != nil {
		gid = *img.Group
	}
	var nonRoot *bool
	groups := []int{}
	if psc := c.rt.pod.Spec.SecurityContext; psc != nil {
		if psc.RunAsUser != nil {
			uid = *psc.RunAsUser
		}
		if psc.RunAsGroup != nil {
			gid = *psc.RunAsGroup
		}
		nonRoot = psc.RunAsNonRoot
		if psc.FSGroup != nil {
			groups = append(groups, int(*psc.FSGroup))
		}
		for _, g := range psc.SupplementalGroups {
			groups = append(groups, int(g))
		}
	}
	if sc := c.spec.SecurityContext; sc != nil {
		if sc.RunAsUser != nil {
			uid = *sc.RunAsUser
		}
		if sc.RunAsGroup != nil {
			gid = *sc.RunAsGroup
		}
		if sc.RunAsNonRoot != nil {
			nonRoot = sc.RunAsNonRoot
		}
	}
	if nonRoot != nil && *nonRoot && uid == 0 {
		return 0, 0, nil, &startError{"CreateContainerConfigError", fmt.Sprintf("container has runAsNonRoot and image will run as root (pod: %q, container: %s)", c.rt.pod.Name+"_"+c.rt.pod.Namespace+"("+c.rt.uid+")", c.spec.Name)}
	}
	return uid, gid, groups, nil
}

// environment builds the process environment in the kubelet's order: image,
// Service links, envFrom, env ($(VAR) expanded against what came before).
func (c *container) environment(img *imageConfig) ([]string, error) {
	rt := c.rt
	vars := map[string]string{"PATH": defaultPath}
	var order []string
	set := func(k, v string) {
		if _, ok := vars[k]; !ok {
			order = append(order, k)
		}
		vars[k] = v
	}
	order = append(order, "PATH")
	keys := make([]string, 0, len(img.Env))
	for k := range img.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		set(k, img.Env[k])
	}
	set("HOSTNAME", rt.hostname())
	for k, v := range rt.serviceEnv() {
		set(k, v)
	}
	for _, ef := range c.spec.EnvFrom {
		data, err := rt.envSource(ef)
		if err != nil {
			return nil, err
		}
		for k, v := range data {
			set(ef.Prefix+k, v)
		}
	}
	for _, e := range c.spec.Env {
		if e.ValueFrom == nil {
			set(e.Name, expand(e.Value, vars))
			continue
		}
		v, ok, err := rt.valueFrom(&c.spec, e.ValueFrom)
		if err != nil {
			return nil, err
		}
		if ok {
			set(e.Name, v)
		}
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, k+"="+vars[k])
	}
	return out, nil
}

func configError(format string, args ...any) error {
	return &startError{"CreateContainerConfigError", fmt.Sprintf(format, args...)}
}

// asConfigError reports a missing object as the kubelet does; nil stays nil.
func asConfigError(err error) error {
	if err == nil {
		return nil
	}
	return configError("%v", err)
}

// configMap is the pod's ConfigMap name: nil without an error when it is
// missing but optional, an error naming it when it is missing and required.
func (rt *podRuntime) configMap(name string, optional *bool) (*corev1.ConfigMap, error) {
	cm, err := rt.p.cfg.configMaps.ConfigMaps(rt.pod.Namespace).Get(name)
	if err == nil || (optional != nil && *optional) {
		return cm, nil
	}
	return nil, fmt.Errorf("configmap %q not found", name)
}

// secret is configMap's twin for Secrets.
func (rt *podRuntime) secret(name string, optional *bool) (*corev1.Secret, error) {
	s, err := rt.p.cfg.secrets.Secrets(rt.pod.Namespace).Get(name)
	if err == nil || (optional != nil && *optional) {
		return s, nil
	}
	return nil, fmt.Errorf("secret %q not found", name)
}

func (rt *podRuntime) envSource(ef corev1.EnvFromSource) (map[string]string, error) {
	if r := ef.ConfigMapRef; r != nil {
		cm, err := rt.configMap(r.Name, r.Optional)
		if err != nil || cm == nil {
			return nil, asConfigError(err)
		}
		return cm.Data, nil
	}
	if r := ef.SecretRef; r != nil {
		s, err := rt.secret(r.Name, r.Optional)
		if err != nil || s == nil {
			return nil, asConfigError(err)
		}
		out := map[string]string{}
		for k, v := range s.Data {
			out[k] = string(v)
		}
		return out, nil
	}
	return nil, nil
}

func (rt *podRuntime) valueFrom(c *corev1.Container, vf *corev1.EnvVarSource) (string, bool, error) {
	ns := rt.pod.Namespace
	switch {
	case vf.FieldRef != nil:
		v, err := rt.fieldValue(vf.FieldRef.FieldPath)
		return v, err == nil, err
	case vf.ResourceFieldRef != nil:
		return resourceValue(c, vf.ResourceFieldRef), true, nil
	case vf.ConfigMapKeyRef != nil:
		r := vf.ConfigMapKeyRef
		optional := r.Optional != nil && *r.Optional
		cm, err := rt.configMap(r.Name, r.Optional)
		if err != nil || cm == nil {
			return "", false, asConfigError(err)
		}
		v, ok := cm.Data[r.Key]
		if !ok && !optional {
			return "", false, configError("couldn't find key %s in ConfigMap %s/%s", r.Key, ns, r.Name)
		}
		return v, ok, nil
	case vf.SecretKeyRef != nil:
		r := vf.SecretKeyRef
		optional := r.Optional != nil && *r.Optional
		s, err := rt.secret(r.Name, r.Optional)
		if err != nil || s == nil {
			return "", false, asConfigError(err)
		}
		v, ok := s.Data[r.Key]
		if !ok && !optional {
			return "", false, configError("couldn't find key %s in Secret %s/%s", r.Key, ns, r.Name)
		}
		return string(v), ok, nil
	}
	return "", false, nil
}

var fieldKey = regexp.MustCompile(`^metadata\.(labels|annotations)\['(.+)'\]$`)

func (rt *podRuntime) fieldValue(path string) (string, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	pod := rt.pod
	switch path {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "spec.nodeName":
		return rt.p.cfg.nodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.hostIP", "status.hostIPs":
		return rt.p.cfg.network.gateway.String(), nil
	case "status.podIP", "status.podIPs":
		if rt.ip == nil {
			return "", nil
		}
		return rt.ip.String(), nil
	case "metadata.labels":
		return formatMap(pod.Labels), nil
	case "metadata.annotations":
		return formatMap(pod.Annotations), nil
	}
	if m := fieldKey.FindStringSubmatch(path); m != nil {
		if m[1] == "labels" {
			return pod.Labels[m[2]], nil
		}
		return pod.Annotations[m[2]], nil
	}
	return "", configError("unsupported fieldRef %q", path)
}

func formatMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	lines := make([]string, 0, len(keys))
	for _, k := range keys {
		lines = append(lines, fmt.Sprintf("%s=%q", k, m[k]))
	}
	return strings.Join(lines, "\n")
}

func resourceValue(c *corev1.Container, r *corev1.ResourceFieldSelector) string {
	divisor := r.Divisor
	if divisor.IsZero() {
		divisor = resource.MustParse("1")
	}
	kind, name, _ := strings.Cut(r.Resource, ".")
	list := c.Resources.Limits
	if kind == "requests" {
		list = c.Resources.Requests
	}
	q, ok := list[corev1.ResourceName(name)]
	if !ok {
		return "0"
	}
	if name == "cpu" {
		v := (q.MilliValue() + divisor.MilliValue() - 1) / divisor.MilliValue()
		return strconv.FormatInt(v, 10)
	}
	return strconv.FormatInt((q.Value()+divisor.Value()-1)/divisor.Value(), 10)
}

// serviceEnv is the Docker-links style environment for the Services in the
// pod's namespace (and the kubernetes Service), when service links are on.
func (rt *podRuntime) serviceEnv() map[string]string {
	out := map[string]string{}
	add := func(s *corev1.Service, hostOnly bool) {
		if s.Spec.ClusterIP == "" || s.Spec.ClusterIP == corev1.ClusterIPNone || len(s.Spec.Ports) == 0 {
			return
		}
		name := strings.ToUpper(strings.ReplaceAll(s.Name, "-", "_"))
		out[name+"_SERVICE_HOST"] = s.Spec.ClusterIP
		out[name+"_SERVICE_PORT"] = strconv.Itoa(int(s.Spec.Ports[0].Port))
		if hostOnly {
			return
		}
		for _, p := range s.Spec.Ports {
			if p.Name != "" {
				out[name+"_SERVICE_PORT_"+strings.ToUpper(strings.ReplaceAll(p.Name, "-", "_"))] = strconv.Itoa(int(p.Port))
			}
		}
	}
	if k, err := rt.p.cfg.services.Services("default").Get("kubernetes"); err == nil {
		add(k, true)
	}
	if rt.pod.Spec.EnableServiceLinks != nil && !*rt.pod.Spec.EnableServiceLinks {
		return out
	}
	svcs, _ := rt.p.cfg.services.Services(rt.pod.Namespace).List(labels.Everything())
	for _, s := range svcs {
		add(s, false)
	}
	return out
}

var varRef = regexp.MustCompile(`\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)`)

// expand resolves $(VAR) against vars; $$ escapes; unknown references stay as written.
func expand(s string, vars map[string]string) string {
	return varRef.ReplaceAllStringFunc(s, func(m string) string {
		if m == "$$" {
			return "$"
		}
		if v, ok := vars[m[2:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

func expandAll(in []string, env []string) []string {
	vars := map[string]string{}
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		vars[k] = v
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = expand(s, vars)
	}
	return out
}
