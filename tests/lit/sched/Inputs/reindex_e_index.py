sch.reindex("B", ("read", 1))
