"""What people read: terminal output of rolls, odds, transcripts and summaries; table exports."""
