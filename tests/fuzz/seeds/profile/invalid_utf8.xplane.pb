
2/device:GPU:0þstreamÿ"èˆ'"kÿþ