sch.reindex_cache_read("pad", 0, "local", lambda vn, vc, vh, vw: (vn, vc, vh, vw))
