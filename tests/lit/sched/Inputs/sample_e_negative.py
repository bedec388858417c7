v = sch.sample_categorical(candidates=[1, 2], probs=[1.5, -0.5])
