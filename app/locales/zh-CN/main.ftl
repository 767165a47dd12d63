console-title = Kaadxpay 控制台
