sch.reindex("D", "X")
