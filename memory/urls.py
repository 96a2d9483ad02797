app_name = "memory"

urlpatterns: list = []
