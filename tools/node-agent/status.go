package main

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func (c *container) status() corev1.ContainerStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	started := c.started && c.state.Running != nil
	s := corev1.ContainerStatus{
		Name: c.spec.Name, Image: c.spec.Image, ImageID: c.imageID,
		State: *c.state.DeepCopy(), LastTerminationState: *c.last.DeepCopy(),
		Ready: c.ready && c.state.Running != nil, RestartCount: c.restarts, Started: &started,
	}
	if c.state.Running != nil || c.state.Terminated != nil {
		s.ContainerID = c.containerID()
	}
	return s
}

func condition(t corev1.PodConditionType, ok bool, reason string) corev1.PodCondition {
	st := corev1.ConditionFalse
	if ok {
		st, reason = corev1.ConditionTrue, ""
	}
	return corev1.PodCondition{Type: t, Status: st, Reason: reason, LastTransitionTime: metav1.Now()}
}

// snapshot is the pod as the API should see it: phase, conditions and
// container statuses computed the way the kubelet computes them.
func (rt *podRuntime) snapshot() *corev1.Pod {
	rt.mu.Lock()
	pod := rt.pod.DeepCopy()
	ip, failed, message, initialized := rt.ip, rt.failed, rt.message, rt.initialized
	rt.mu.Unlock()

	st := corev1.PodStatus{StartTime: &rt.startTime, HostIP: rt.p.cfg.network.gateway.String(), QOSClass: pod.Status.QOSClass}
	st.HostIPs = []corev1.HostIP{{IP: st.HostIP}}
	if ip != nil {
		st.PodIP = ip.String()
		st.PodIPs = []corev1.PodIP{{IP: st.PodIP}}
	}
	for _, c := range rt.inits {
		st.InitContainerStatuses = append(st.InitContainerStatuses, c.status())
	}
	allReady, running, terminated, succeeded := true, 0, 0, 0
	for _, c := range rt.ctrs {
		cs := c.status()
		if !initialized {
			cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}
		}
		st.ContainerStatuses = append(st.ContainerStatuses, cs)
		allReady = allReady && cs.Ready
		switch {
		case cs.State.Running != nil:
			running++
		case cs.State.Terminated != nil:
			terminated++
			if cs.State.Terminated.ExitCode == 0 {
				succeeded++
			}
		}
	}
	policy := rt.restartPolicy()
	switch {
	case failed == "FailedCreatePodSandBox":
		st.Phase = corev1.PodPending
		st.Message = message
	case failed != "":
		st.Phase = corev1.PodFailed
	case !initialized:
		st.Phase = corev1.PodPending
	case terminated == len(rt.ctrs) && policy == corev1.RestartPolicyNever:
		st.Phase = corev1.PodSucceeded
		if succeeded < terminated {
			st.Phase = corev1.PodFailed
		}
	case terminated == len(rt.ctrs) && policy == corev1.RestartPolicyOnFailure && succeeded == terminated:
		st.Phase = corev1.PodSucceeded
	case running > 0 || terminated < len(rt.ctrs) || policy == corev1.RestartPolicyAlways:
		st.Phase = corev1.PodRunning
		if running == 0 && terminated == 0 {
			st.Phase = corev1.PodPending
		}
	}
	ready := initialized && allReady && st.Phase == corev1.PodRunning
	notReady := "ContainersNotReady"
	if !initialized {
		notReady = "ContainersNotInitialized"
	}
	st.Conditions = []corev1.PodCondition{
		condition(corev1.PodReadyToStartContainers, ip != nil, ""),
		condition(corev1.PodInitialized, initialized, "ContainersNotInitialized"),
		condition(corev1.ContainersReady, ready, notReady),
		condition(corev1.PodReady, ready, notReady),
		condition(corev1.PodScheduled, true, ""),
	}
	// Keep transition times stable: the API should only see a new time when a condition changes.
	rt.mu.Lock()
	for i := range st.Conditions {
		for _, old := range rt.conditions {
			if old.Type == st.Conditions[i].Type && old.Status == st.Conditions[i].Status {
				st.Conditions[i].LastTransitionTime = old.LastTransitionTime
			}
		}
	}
	rt.conditions = st.Conditions
	rt.mu.Unlock()
	if failed == "Failed" {
		st.Reason, st.Message = "Failed", fmt.Sprintf("init container failed under restartPolicy %s", policy)
	}
	pod.Status = st
	return pod
}
