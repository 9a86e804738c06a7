package main

import (
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pinToCurrentCPU sets the affinity of every thread of the process to the
// CPU the calling thread runs on. Linux sets affinity per thread
// (sched_setaffinity(2)), and a new thread inherits its creator's, so once
// the runtime's existing threads are held the ones it starts later are
// too. Failures leave the process as it was: this only saves time.
func pinToCurrentCPU() {
	var cpu uint32
	if _, _, errno := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); errno != 0 {
		return
	}
	var set unix.CPUSet
	set.Set(int(cpu))
	d, err := os.Open("/proc/self/task")
	if err != nil {
		return
	}
	tasks, _ := d.Readdirnames(-1)
	d.Close()
	for _, t := range tasks {
		if tid, err := strconv.Atoi(t); err == nil {
			// A thread that has just ended is no error worth reporting.
			_ = unix.SchedSetaffinity(tid, &set)
		}
	}
}
