module speckernel.example/rwlock

go 1.22
