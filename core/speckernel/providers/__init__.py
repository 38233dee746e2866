"""The model providers the kernel ships: ``openai`` (and every server speaking its dialect),
``anthropic``, and ``replay`` (recorded responses). ``http`` holds the retry and rate-limiting
machinery they share, ``pricing`` the price table that turns tokens into dollars."""
