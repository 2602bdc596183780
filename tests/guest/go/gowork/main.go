// SPDX-License-Identifier: GPL-2.0
// gowork: a Go program for uprobes on a Go function entry.  main calls
// work(i) for i = 0 .. N-1 (N = argv[1], default 100000) and prints one line,
// the sum of the results, so that runs with and without probes can be
// compared.  work is not inlined and has a frame, so that the Go compiler
// gives it the stack-bound check prologue: its first instruction is
// "ldr x16, [x28, #16]" (g.stackguard0), which scripts/gowork.sh checks.
// Standard library only, no cgo.
package main

import (
	"fmt"
	"os"
	"strconv"
)

// mix: a little arithmetic on a and b; not inlined, so that work calls it
// and so is not a leaf.
//
//go:noinline
func mix(a, b int) int {
	return (a*31 + b) ^ (a >> 3)
}

// work: the probed function.  Returns a value in [0, 0xffff] that depends
// on i.
//
//go:noinline
func work(i int) int {
	var buf [8]int
	for k := range buf {
		buf[k] = mix(i, k)
	}
	s := 0
	for k, v := range buf {
		s += v * (k + 1)
	}
	return s & 0xffff
}

func main() {
	n := 100000
	if len(os.Args) > 1 {
		v, err := strconv.Atoi(os.Args[1])
		if err != nil || v < 0 {
			fmt.Fprintf(os.Stderr, "usage: %s [N >= 0]\n", os.Args[0])
			os.Exit(2)
		}
		n = v
	}
	sum := 0
	for i := 0; i < n; i++ {
		sum += work(i)
	}
	fmt.Println(sum)
}
