module speckernel.example/locksrv

go 1.22
