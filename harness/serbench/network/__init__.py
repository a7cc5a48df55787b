"""The network tasks (PROTOCOL.md section 10): cells whose work spans several node processes.

`wire` speaks the frames and the control messages, `placement` starts node programs (on
loopback today; the same interface will start them in network namespaces and on Dask
workers), `cell` runs one cell through every node (setup, connect, a start barrier per
repetition, one report per node) and tears it down, and each task module (`fetch`) says what
its nodes are, what each is given and what its result must be.
"""
