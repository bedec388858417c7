sch.reindex("S", ("read", 1))
