"""next-edit prediction: edit history (history.py); the predictor comes later."""
