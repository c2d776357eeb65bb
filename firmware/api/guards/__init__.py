"""What guards the API's door: peer credentials, TCP slots per network, login
lockout, request budgets."""
