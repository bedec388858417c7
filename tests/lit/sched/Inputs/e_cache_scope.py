sch.cache_read("B", 0, "sharedx")
