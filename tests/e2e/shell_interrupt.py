#!/usr/bin/env python3
"""Ctrl-C in `silt shell` interrupts the running statement, not the shell.

    shell_interrupt.py SILT_BIN

Pipes a statement that would run for minutes (a 10^5 x 10^6 row cross join
counted) and then `SELECT 42`, sends SIGINT once the shell has spent 0.3 s
of CPU time (so it is inside the statement, past startup), and expects the
first statement to fail with [OPERATION_CANCELED] and the second to print
its row. The 60 s timeout only guards against a hang.
"""
import signal
import subprocess
import sys
import time


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100.0  # utime + stime, in clock ticks


def main():
    silt = sys.argv[1]
    proc = subprocess.Popen([silt, "shell"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    proc.stdin.write("SELECT count(*) FROM range(100000) a CROSS JOIN range(1000000) b;\n"
                     "SELECT 42 AS answer;\n")
    proc.stdin.flush()
    deadline = time.monotonic() + 60
    while cpu_seconds(proc.pid) < 0.3:
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            print("FAIL: the shell ended or never got busy")
            return 1
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    ok = "[OPERATION_CANCELED] Operation has been canceled." in err and "|    42|" in out
    print(("ok" if ok else "FAIL") + ": Ctrl-C interrupts the statement, the shell goes on")
    if not ok:
        print("exit", proc.returncode, "\nstdout:", out, "\nstderr:", err)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
