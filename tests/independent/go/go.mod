module example.org/gosubject

go 1.19
