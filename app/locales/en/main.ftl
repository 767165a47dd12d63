console-title = Kaadxpay console
