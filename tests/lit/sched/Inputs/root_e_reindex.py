sch.reindex("root", ("read", 0))
