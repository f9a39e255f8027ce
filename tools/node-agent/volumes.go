package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// permanentError is a volume the node can never provide; the pod fails.
type permanentError struct{ error }

// prepareVolumes gives every pod volume a host directory. Projected content
// (configMap, secret, downwardAPI) is then kept in sync while the pod runs,
// as the kubelet does.
func (rt *podRuntime) prepareVolumes() error {
	var projected []corev1.Volume
	for _, v := range rt.pod.Spec.Volumes {
		rt.mu.Lock()
		_, done := rt.volumes[v.Name]
		rt.mu.Unlock()
		if done {
			continue
		}
		dir, err := rt.prepareVolume(v)
		if err != nil {
			return err
		}
		rt.mu.Lock()
		rt.volumes[v.Name] = dir
		rt.mu.Unlock()
		if v.ConfigMap != nil || v.Secret != nil || v.DownwardAPI != nil || v.Projected != nil {
			projected = append(projected, v)
		}
	}
	if len(projected) > 0 {
		go rt.syncProjected(projected)
	}
	return nil
}

func (rt *podRuntime) fsGroup() *int64 {
	if sc := rt.pod.Spec.SecurityContext; sc != nil {
		return sc.FSGroup
	}
	return nil
}

func (rt *podRuntime) prepareVolume(v corev1.Volume) (string, error) {
	dir := filepath.Join(rt.dir, "volumes", v.Name)
	switch {
	case v.EmptyDir != nil:
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return "", err
		}
		if v.EmptyDir.Medium == corev1.StorageMediumMemory {
			size := "50%"
			if v.EmptyDir.SizeLimit != nil && !v.EmptyDir.SizeLimit.IsZero() {
				size = strconv.FormatInt(v.EmptyDir.SizeLimit.Value(), 10)
			}
			if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=1777,size="+size); err != nil {
				return "", fmt.Errorf("emptyDir %s (Memory): %w", v.Name, err)
			}
			rt.mu.Lock()
			rt.tmpfs = append(rt.tmpfs, dir)
			rt.mu.Unlock()
		}
		return dir, os.Chmod(dir, 0o777)
	case v.ConfigMap != nil, v.Secret != nil, v.DownwardAPI != nil, v.Projected != nil:
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		return dir, rt.writeProjected(v, dir)
	case v.PersistentVolumeClaim != nil:
		claim := v.PersistentVolumeClaim.ClaimName
		pvc, err := rt.p.cfg.client.CoreV1().PersistentVolumeClaims(rt.pod.Namespace).Get(context.Background(), claim, metav1.GetOptions{})
		if err != nil {
			return "", fmt.Errorf("persistentvolumeclaim %q: %w", claim, err)
		}
		if pvc.Spec.VolumeName == "" || pvc.Status.Phase != corev1.ClaimBound {
			return "", fmt.Errorf("persistentvolumeclaim %q is not bound", claim)
		}
		pv := filepath.Join(rt.p.cfg.workDir, "pv", pvc.Spec.VolumeName)
		if err := os.MkdirAll(pv, 0o755); err != nil {
			return "", err
		}
		if g := rt.fsGroup(); g != nil {
			if err := applyFSGroup(pv, int(*g)); err != nil {
				return "", err
			}
		}
		return pv, nil
	case v.HostPath != nil:
		return v.HostPath.Path, nil
	}
	return "", permanentError{fmt.Errorf("volume %q: this node supports emptyDir, configMap, secret, downwardAPI, projected, persistentVolumeClaim and hostPath volumes", v.Name)}
}

// applyFSGroup gives the group ownership and group write with setgid
// directories, as the kubelet's fsGroup handling does.
func applyFSGroup(root string, gid int) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		st := info.Sys().(*syscall.Stat_t)
		if int(st.Gid) != gid {
			if err := os.Lchown(p, int(st.Uid), gid); err != nil {
				return err
			}
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		mode := info.Mode().Perm() | 0o060
		if d.IsDir() {
			return os.Chmod(p, mode|0o010|os.ModeSetgid)
		}
		return os.Chmod(p, mode)
	})
}

// projectedFiles computes a projected volume's files (path -> content, mode).
func (rt *podRuntime) projectedFiles(v corev1.Volume) (map[string][]byte, map[string]os.FileMode, error) {
	files, modes := map[string][]byte{}, map[string]os.FileMode{}
	addItems := func(data map[string][]byte, items []corev1.KeyToPath, def *int32) error {
		mode := os.FileMode(0o644)
		if def != nil {
			mode = os.FileMode(*def)
		}
		if len(items) == 0 {
			for k, b := range data {
				files[k], modes[k] = b, mode
			}
			return nil
		}
		for _, it := range items {
			b, ok := data[it.Key]
			if !ok {
				return fmt.Errorf("configmap/secret key %q not found", it.Key)
			}
			m := mode
			if it.Mode != nil {
				m = os.FileMode(*it.Mode)
			}
			files[it.Path], modes[it.Path] = b, m
		}
		return nil
	}
	configMap := func(name string, items []corev1.KeyToPath, def *int32, optional *bool) error {
		cm, err := rt.configMap(name, optional)
		if err != nil || cm == nil {
			return err
		}
		data := map[string][]byte{}
		for k, s := range cm.Data {
			data[k] = []byte(s)
		}
		for k, b := range cm.BinaryData {
			data[k] = b
		}
		return addItems(data, items, def)
	}
	secret := func(name string, items []corev1.KeyToPath, def *int32, optional *bool) error {
		s, err := rt.secret(name, optional)
		if err != nil || s == nil {
			return err
		}
		return addItems(s.Data, items, def)
	}
	downward := func(items []corev1.DownwardAPIVolumeFile, def *int32) error {
		for _, it := range items {
			var val string
			if it.FieldRef != nil {
				s, err := rt.fieldValue(it.FieldRef.FieldPath)
				if err != nil {
					return err
				}
				val = s
			} else if it.ResourceFieldRef != nil {
				for i := range rt.pod.Spec.Containers {
					if rt.pod.Spec.Containers[i].Name == it.ResourceFieldRef.ContainerName {
						val = resourceValue(&rt.pod.Spec.Containers[i], it.ResourceFieldRef)
					}
				}
			}
			m := os.FileMode(0o644)
			if def != nil {
				m = os.FileMode(*def)
			}
			if it.Mode != nil {
				m = os.FileMode(*it.Mode)
			}
			files[it.Path], modes[it.Path] = []byte(val), m
		}
		return nil
	}
	var err error
	switch {
	case v.ConfigMap != nil:
		err = configMap(v.ConfigMap.Name, v.ConfigMap.Items, v.ConfigMap.DefaultMode, v.ConfigMap.Optional)
	case v.Secret != nil:
		err = secret(v.Secret.SecretName, v.Secret.Items, v.Secret.DefaultMode, v.Secret.Optional)
	case v.DownwardAPI != nil:
		err = downward(v.DownwardAPI.Items, v.DownwardAPI.DefaultMode)
	case v.Projected != nil:
		for _, src := range v.Projected.Sources {
			switch {
			case src.ConfigMap != nil:
				err = configMap(src.ConfigMap.Name, src.ConfigMap.Items, v.Projected.DefaultMode, src.ConfigMap.Optional)
			case src.Secret != nil:
				err = secret(src.Secret.Name, src.Secret.Items, v.Projected.DefaultMode, src.Secret.Optional)
			case src.DownwardAPI != nil:
				err = downward(src.DownwardAPI.Items, v.Projected.DefaultMode)
			case src.ServiceAccountToken != nil:
				var token string
				token, err = rt.serviceAccountToken(src.ServiceAccountToken)
				m := os.FileMode(0o644)
				if v.Projected.DefaultMode != nil {
					m = os.FileMode(*v.Projected.DefaultMode)
				}
				files[src.ServiceAccountToken.Path], modes[src.ServiceAccountToken.Path] = []byte(token), m
			}
			if err != nil {
				break
			}
		}
	}
	return files, modes, err
}

// writeProjected writes changed files atomically (write, then rename) and
// removes files no longer projected, so readers never see a partial file.
func (rt *podRuntime) writeProjected(v corev1.Volume, dir string) error {
	files, modes, err := rt.projectedFiles(v)
	if err != nil {
		return err
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.Clean("/"+name))
		if old, err := os.ReadFile(p); err == nil && string(old) == string(content) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		tmp := filepath.Join(filepath.Dir(p), ".."+filepath.Base(p)+".tmp")
		if err := os.WriteFile(tmp, content, modes[name]); err != nil {
			return err
		}
		_ = os.Chmod(tmp, modes[name])
		if g := rt.fsGroup(); g != nil && v.Secret != nil {
			_ = os.Chown(tmp, 0, int(*g))
		}
		if err := os.Rename(tmp, p); err != nil {
			return err
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if _, keep := files[e.Name()]; !keep && !e.IsDir() {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	return nil
}

func (rt *podRuntime) syncProjected(vols []corev1.Volume) {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-rt.ctx.Done():
			return
		case <-t.C:
		}
		for _, v := range vols {
			rt.mu.Lock()
			dir := rt.volumes[v.Name]
			rt.mu.Unlock()
			_ = rt.writeProjected(v, dir)
		}
	}
}
