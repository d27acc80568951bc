"""Intake: reading what students submitted, without trusting it.

Which commit counts (the deadline record from the server's own answers),
fetching one commit over git's protocol with a credential for one host, and
reading the five contract files as capped regular blobs of a commit or a
folder. Nothing here checks a repository out, runs student code or grades.
"""
