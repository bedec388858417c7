sch.reindex("pad", ("read", 0))
