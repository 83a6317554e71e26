MemcpyHtoD,0x00007f6200000000,4096
kernel-1.traceg
kernel-2.traceg
kernel-3.traceg
kernel-4.traceg
kernel-5.traceg
kernel-6.traceg
