"""What a run leaves in its directory: checkpoints (`checkpoints`), metrics as JSON lines and
TensorBoard (`metrics`), the run directory itself (`run_dirs`); and the progress display (`progress`)."""
