"""components"""
