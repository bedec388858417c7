sch.reindex("B", "A")
