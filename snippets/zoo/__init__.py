"""The model zoo: real architectures, eager against torch.compile, family by family.

``catalog`` lists the models (torchvision, timm and transformers, random weights from configs).
"""
