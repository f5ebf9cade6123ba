/* An in-process sampling profiler for the benchmark's --profile mode, for
 * machines without perf (a gVisor sandbox has no perf_event_open hardware
 * or software events). A timer on CPU time sends SIGPROF; the handler
 * stores the interrupted PC and the thread id into an array made before
 * the timer starts. bench/sample_report.py turns the file into a flat
 * profile (self time by module and symbol, like
 * `perf report --no-children --sort dso,sym`).
 *
 * The timers:
 *   SAMPLER_PROCESS (the default): setitimer(ITIMER_PROF), the process's
 *     CPU time, every thread together. SIGPROF is then a process-directed
 *     signal: Linux gives it to the thread whose tick ran the timer out,
 *     gVisor to one of the threads running at its tick. But a thread that
 *     blocks SIGPROF (Mesa's and other drivers' worker threads block every
 *     signal) cannot take it: the signal goes to another thread, running or
 *     asleep, and that thread's PC is sampled for the blocking thread's CPU
 *     time. The file's task lines give each thread's CPU time and mask, so
 *     the report can say how much CPU time was sampled that way.
 *   SAMPLER_THREADS: one POSIX timer on each thread's own CPU clock
 *     (timer_create on the thread's clock, SIGEV_THREAD_ID to it) for the
 *     threads there at start: each sample is the PC of the thread that spent
 *     the time; a thread that blocks SIGPROF is not sampled at all (its
 *     signal stays pending), and neither is a thread made after the start.
 * Time in a system call is CPU time too: its sample lands on the user PC
 * after the syscall instruction (libc's wrapper), never in the kernel. The
 * timers' resolution is the kernel's: on Linux about one sample per tick
 * (CONFIG_HZ) at most (per thread with SAMPLER_THREADS), under gVisor one
 * per 10 ms (its CPU clocks tick at 100 Hz), so a rate asked above that
 * comes out lower: the file says both.
 *
 * The file (text, one record a line, fields separated by one space; hex
 * without 0x; a name last on its line, so it may hold spaces):
 *   unlost-sampler 1
 *   exe PATH                     the main executable (/proc/self/exe)
 *   hz HZ interval_us US         asked rate, and the timer's interval
 *   timer process|threads N      the timer; N: per-thread timers armed
 *   main_tid TID                 the thread that called sampler_start
 *   samples N dropped D          kept, and lost because the array was full
 *   cpu_ms C wall_ms W user_ms U sys_ms S
 *                                the process's CPU time while sampling
 *                                (CLOCK_PROCESS_CPUTIME_ID), the wall time,
 *                                and getrusage's user/system split of it
 *   module BASE NAME             a loaded object (dl_iterate_phdr's order at
 *                                stop): BASE its load bias (dlpi_addr: a PC
 *                                minus BASE is the address nm prints), NAME
 *                                its path; the executable's (dl_iterate_phdr
 *                                names it "") written as exe's PATH, the
 *                                vDSO as [vdso], another nameless one [anon]
 *   load START END FLAGS         a PT_LOAD segment of the module above:
 *                                absolute [START, END), FLAGS of r w x -
 *   task TID CPU0 CPU1 B NAME    a thread seen at start or stop: its CPU
 *                                time in ms then (-1: not there), B b where
 *                                it blocks SIGPROF, - where not, ? unknown
 *   thread TID N                 samples of one thread
 *   pc PC CLASS N                N samples at PC (absolute), CLASS m (the
 *                                main thread) or o (any other); sorted by PC
 *   end
 * The samples are taken between sampler_start and sampler_stop only. */
#ifndef UL_BENCH_SAMPLER_H
#define UL_BENCH_SAMPLER_H

#include <stddef.h>

enum { SAMPLER_PROCESS, SAMPLER_THREADS };

/* The timer of the next sampler_start (SAMPLER_PROCESS unless set). */
void sampler_set_timer(int which);

/* Arms the timer at hz samples a second of CPU time (1..1000000); the file
 * is written at sampler_stop. 0, or -1 with why (also where the
 * architecture is not supported: x86-64 Linux only). */
int sampler_start(const char *path, int hz, char *why, size_t cap);

/* Disarms the timer, waits for a handler still running, and writes the
 * file. 0, or -1 (said on stderr). The handler stays installed, inert, so
 * that a SIGPROF still pending cannot end the process. */
int sampler_stop(void);

#endif
