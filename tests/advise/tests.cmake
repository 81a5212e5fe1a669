hloroof_add_test(advise_test ${CMAKE_CURRENT_LIST_DIR}/advise_test.cc)
# The whole corpus, as its own test so that its time and output stand apart.
hloroof_add_test(advise_corpus_test ${CMAKE_CURRENT_LIST_DIR}/advise_corpus_test.cc)
