v = sch.sample_categorical(candidates=[1, 2], probs=[0.0, 0.0])
