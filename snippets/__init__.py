"""Code and measurements behind the torch.compile field guide: every block on the site is here."""
